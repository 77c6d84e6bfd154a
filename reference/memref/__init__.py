"""memref: the reference implementation of the memspec profiles.

Import a profile module, for example ``memref.memdir``. ``PROTOCOL_VERSION`` is the
version of the adapter protocol memref speaks (spec/protocol.md).
"""

from importlib.metadata import PackageNotFoundError, version

__all__ = ["PROTOCOL_VERSION", "__version__"]

try:
    __version__ = version("memspec")
except PackageNotFoundError:  # imported from a source tree that was never installed
    __version__ = "0+unknown"
PROTOCOL_VERSION = "1.1.0"
