"""In-process fakes of the toy ``demo`` profile for steps that capture part of a result:
``demo.key`` names a path by a key that depends on where the case runs, and
``demo.dir`` builds a directory from that key."""

from __future__ import annotations

import re
from typing import Any

from file_fakes import FileOps


def key(path: str) -> str:
    return re.sub("[^A-Za-z0-9]", "-", path)


class Keys(FileOps):
    """Correct: ``demo.dir`` uses the key ``demo.key`` gives."""

    name = "keys"

    def run(self, op: str, args: dict[str, Any]) -> Any:
        if op == "demo.key":
            return key(args["path"])
        if op == "demo.named":
            return {"name": key(args["path"]), "items": [{"base64": "YWI="}, 7]}
        if op == "demo.dir":
            return f"/cfg/{self.dir_key(args['path'])}/"
        if op == "demo.refuse":
            raise OSError(5, f"refused {args['path']}")
        return super().run(op, args)

    def dir_key(self, path: str) -> str:
        return key(path)


class OtherKey(Keys):
    """Flawed: ``demo.dir`` keys the path differently from ``demo.key``."""

    name = "other-key"

    def dir_key(self, path: str) -> str:
        return key(path).lower()


class NoKey(Keys):
    """Flawed: ``demo.key`` answers a number, and ``demo.named`` an error."""

    name = "no-key"

    def run(self, op: str, args: dict[str, Any]) -> Any:
        if op == "demo.key":
            return 7
        if op == "demo.named":
            raise OSError(5, "no name")
        return super().run(op, args)
