"""Small in-process ports of the memdir profile, each incomplete or wrong on purpose, as a
porter's first attempt looks: they implement a few ops and answer ``unknown-op`` to the
rest."""

from __future__ import annotations

from typing import Any

from fakes import start_reply

from memspec.wire.instants import parse_instant as _ns

TYPES = ("user", "feedback", "project", "reference")


class ThreeOps:
    """Implements constants, parse_memory_type (wrongly: it lower-cases) and age_days."""

    name = "three-ops"
    capabilities: tuple[str, ...] = ("symlinks", "fifos")

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op, request_id, args = message["op"], message["id"], message.get("args", {})
        if op == "start":
            return start_reply(
                request_id,
                self.name,
                ["memdir"],
                self.capabilities,
                version="0.0.1",
                protocol="1.1.0",
            )
        if op == "stop":
            return {"id": request_id, "result": None}
        handler = getattr(self, "op_" + op.removeprefix("memdir."), None)
        if not op.startswith("memdir.") or handler is None:
            return {"id": request_id, "error": {"kind": "unknown-op", "message": op}}
        return {"id": request_id, "result": handler(args)}

    def op_constants(self, args: dict[str, Any]) -> Any:
        return {
            "project_memory_file": "EVVA.md",
            "max_file_bytes": 65536,
            "memory_dir_name": "memory",
            "memory_index_file": "MEMORY.md",
            "max_index_lines": 200,
            "max_index_bytes": 25000,
            "max_memory_files": 200,
            "frontmatter_max_lines": 30,
            "frontmatter_scan_bytes": 4096,
            "memory_types": list(TYPES),
            "recall_max_selected": 5,
            "recall_max_tokens": 256,
            "dream_lock_file": ".consolidate-lock",
            "dream_stale_after_s": 3600,
            "dream_scan_throttle_s": 600,
            "dream_default_min_hours": 24,
            "dream_default_min_sessions": 5,
        }

    def op_parse_memory_type(self, args: dict[str, Any]) -> Any:
        raw = str(args["raw"])
        kind = raw.lower() if raw.lower() in TYPES else ""
        return {"type": kind.upper() if raw == "user" else kind, "ok": bool(kind)}

    def op_age_days(self, args: dict[str, Any]) -> Any:
        elapsed = _ns(args["now"]) - _ns(args["mtime"])
        return max(0, elapsed // 86_400_000_000_000)


class ThreeOpsNoSymlinks(ThreeOps):
    """The same, declining the symlinks capability."""

    capabilities = ("fifos",)


class FloatDays(ThreeOps):
    """age_days through floating-point hours, rounded instead of floored."""

    def op_age_days(self, args: dict[str, Any]) -> Any:
        hours = (_ns(args["now"]) - _ns(args["mtime"])) / 3_600_000_000_000
        return max(0, round(hours / 24))


class PluginProbe(ThreeOps):
    """ThreeOps that, when started, writes to the file ``$MEMSPEC_PLUGIN_PROBE`` the
    pytest plugins of its process other than those the suite uses."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["op"] == "start":
            import os
            import sys

            foreign = sorted(
                name
                for name in sys.modules
                if name.split(".")[0] in ("pyfakefs", "pytest_benchmark", "xdist")
            )
            with open(os.environ["MEMSPEC_PLUGIN_PROBE"], "w", encoding="utf-8") as probe:
                probe.write("\n".join(foreign))
        return super().handle(message)
