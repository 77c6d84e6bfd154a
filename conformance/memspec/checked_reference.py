"""``python:memspec.checked_reference:Reference``: memref with every reply checked against
its result schema; it lives in ``memspec.wire.checked_reference``."""

from memspec.wire.checked_reference import *  # noqa: F403
from memspec.wire.checked_reference import __all__ as __all__
