"""The corpus: what a case is and where it comes from. Fixtures and their forms, tokens,
op schemas, requirements, divergences, expectations files and the registry of suite cases.

Imports no other room.
"""
