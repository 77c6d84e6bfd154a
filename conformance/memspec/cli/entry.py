"""The ``memspec`` command's entry point.

``memspec serve-reference`` is the adapter process of a ``cmd:`` run, started once per
run and once more for each extra connection, so it is answered before anything of the
command line is imported: it loads memref and what memref needs to speak the protocol,
and nothing else. Every other command goes to ``memspec.cli.main``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

__all__ = ["main"]

SERVE_REFERENCE = "serve-reference"


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments != [SERVE_REFERENCE]:
        from memspec.cli.main import main as command_line

        return command_line(None if argv is None else arguments)
    from memspec.wire.serve import serve_reference

    return serve_reference()
