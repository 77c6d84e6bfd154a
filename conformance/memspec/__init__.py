"""memspec: the conformance suite for on-disk agent memory formats.

Run it with the ``memspec`` command or as a pytest plugin (``-p memspec.pytest_plugin``).
"""

__version__ = "0.1.0"
PROTOCOL_VERSION = "1.0.0"
