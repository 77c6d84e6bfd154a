"""The conformance suite as pytest tests: collect it with ``--pyargs memspec.suite``."""

__all__: list[str] = []
