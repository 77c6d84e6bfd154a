"""memref: the reference implementation of the memspec profiles.

Import a profile module, for example ``memref.memdir``.
"""

__version__ = "0.1.0"
PROTOCOL_VERSION = "1.1.0"
