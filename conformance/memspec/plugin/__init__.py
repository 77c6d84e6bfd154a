"""The pytest layer: hooks, options and run state, collection and selection, fixtures,
verdicts, the records and reports of a run, written expectations and exported failures.

May import ``reports``, ``run``, ``judge``, ``observe``, ``wire`` and ``corpus``.
"""
