"""Running one case: trees in real directories, scratch folders, set-up actions, captured
values, calls, concurrent steps, held locks, readers, the racer and crash points (the
mutation failed by the adapter or by the observer).

May import ``judge``, ``observe``, ``wire`` and ``corpus``.
"""
