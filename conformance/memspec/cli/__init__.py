"""The command line: ``memspec`` and its subcommands, lint, coverage, explain, smoke, and
``new-adapter`` with its templates. Nothing here is imported on the way to
``serve-reference`` but ``entry``.

May import ``plugin``, ``reports``, ``run``, ``judge``, ``observe``, ``wire`` and ``corpus``.
"""
