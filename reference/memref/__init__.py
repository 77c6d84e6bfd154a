"""memref: the reference implementation of the memspec profiles.

Import a profile module, for example ``memref.memdir``. ``PROTOCOL_VERSION`` is the
version of the adapter protocol memref speaks (spec/protocol.md).
"""

__all__ = ["PROTOCOL_VERSION", "__version__"]

# The distribution's version, as memspec.__version__ gives it (a test keeps them equal).
__version__ = "0.1.0"
PROTOCOL_VERSION = "1.1.0"
