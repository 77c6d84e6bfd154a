"""Running one case: trees in real directories, scratch folders, set-up actions, captured
values, calls, concurrent steps, held locks, readers, the racer and crash points.

May import ``judge``, ``wire`` and ``corpus``.
"""
