"""memref over the protocol on standard input and output: the process behind
``memspec serve-reference``, which loads memref and what memref needs to speak the
protocol, and nothing of the command line."""

from __future__ import annotations

import os
import sys

__all__ = ["serve_reference"]


def serve_reference() -> int:
    """memref over the protocol on standard input and output, until ``stop``."""
    from memref.serve import serve

    try:
        return serve()
    except BrokenPipeError:  # the harness went away: nothing left to answer
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
