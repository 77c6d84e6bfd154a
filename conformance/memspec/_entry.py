"""The ``memspec`` command's entry point.

``memspec serve-reference`` is the adapter process of a ``cmd:`` run, started once per
run and once more for each extra connection, so it is answered before anything of the
command line is imported: it loads memref and what memref needs to speak the protocol,
and nothing else. Every other command goes to ``memspec._cli``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

__all__ = ["main", "serve_reference"]

SERVE_REFERENCE = "serve-reference"


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments != [SERVE_REFERENCE]:
        from memspec._cli import main as command_line

        return command_line(arguments)
    return serve_reference()


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
