"""Before a run: can the adapter be started, and does it claim anything this suite knows?

A broken adapter stops ``memspec run`` before pytest starts, with one line on stderr and
reports that say why.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memspec._profiles import known_profiles
from memspec.adapters import Adapter
from memspec.exceptions import AdapterBroken
from memspec.report import Report, render_junit, render_markdown, run_info

__all__ = ["adapter_problem", "write_broken_reports"]


def adapter_problem(adapter: Adapter) -> tuple[str, Mapping[str, Any]]:
    """Why the adapter cannot be used (empty when it can), and what it said of itself."""
    try:
        handshake = adapter.handshake
    except AdapterBroken as exc:
        return str(exc), {}
    finally:
        adapter.close()
    known = known_profiles()
    if not set(handshake.profiles) & set(known):
        return (
            f"the adapter claims no profile this suite knows: it claimed "
            f"{list(handshake.profiles)}; the suite knows {list(known)}",
            handshake.implementation,
        )
    return "", handshake.implementation


def write_broken_reports(
    reason: str,
    implementation: Mapping[str, Any],
    adapter_spec: str,
    report: str | None,
    junit: str | None,
    summary: str | None,
) -> None:
    info = {
        **run_info(),
        "adapter": adapter_spec,
        "euid": os.geteuid() if hasattr(os, "geteuid") else None,
    }
    broken = Report(
        implementation=implementation or {"name": "unknown", "version": "", "language": ""},
        info=info,
        broken=reason,
    )
    if report:
        broken.write(Path(report))
    if junit:
        Path(junit).write_text(render_junit(broken), encoding="utf-8", errors="backslashreplace")
    if summary:
        Path(summary).write_text(
            render_markdown(broken), encoding="utf-8", errors="backslashreplace"
        )
