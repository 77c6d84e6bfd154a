"""Fakes of the toy ``demo`` profile for the judge: each fails one case in several ways
at once, or in a way a host path shows."""

from __future__ import annotations

import os
from typing import Any

from race_fakes import SafeWriter


class WrongOnDiskToo(SafeWriter):
    """Flawed twice over: ``demo.put_in`` writes every line ending as CRLF, leaves the
    file at mode 0600 and answers ``done`` instead of ``ok``."""

    name = "wrong-on-disk-too"

    def put_in(self, root: str, dir: str, name: str, text: str) -> str:
        super().put_in(root, dir, name, text.replace("\n", "\r\n"))
        os.chmod(os.path.join(root, dir, name), 0o600)
        return "done"


class LeaksInSuccess(SafeWriter):
    """Flawed: ``demo.tool`` answers a text that is not an error and names the host path
    of the file, as ``[Errno 1] Operation not permitted: '<host path>'`` does."""

    name = "leaks-in-success"

    def tool(self, root: str, path: str) -> dict[str, Any]:
        return {"content": f"[Errno 1] Operation not permitted: '{root}{path}'", "is_error": False}
