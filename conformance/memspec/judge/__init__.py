"""The judge: deciding whether what an implementation did meets a case, and saying how it
differs: messages that show a difference, and the check on text sent to the model.

May import ``observe``, ``wire`` and ``corpus``.
"""
