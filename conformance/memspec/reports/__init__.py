"""What a run leaves behind and what reads it: JSON lines, JUnit and Markdown, diff,
merge, shards, badges and the conformance matrix; and how memspec writes the files it is
asked for.

May import ``run``, ``judge``, ``observe``, ``wire`` and ``corpus``.
"""
