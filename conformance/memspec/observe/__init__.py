"""Watching and steering an adapter's system calls: the tracer (``strace``) attached to
the adapter's processes for one request, the calls it saw, and the faults it injects.

May import ``wire`` and ``corpus``.
"""
