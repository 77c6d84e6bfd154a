"""Before a run: can the adapter be started, and does it claim anything this suite knows?

A broken adapter stops ``memspec run`` before pytest starts, with one line on stderr and
reports that say why; the plugin and ``smoke`` apply the same checks.
"""

from __future__ import annotations

from collections.abc import Sequence

from memspec.corpus.profiles import known_profiles
from memspec.exceptions import AdapterBroken
from memspec.reports.report import UNKNOWN_IMPLEMENTATION, Report, run_info, write_reports
from memspec.wire.adapters import Adapter, Handshake

__all__ = ["adapter_problem", "unknown_claims", "write_broken_reports"]


def unknown_claims(profiles: Sequence[str]) -> str:
    """Why claiming ``profiles`` makes an adapter unusable here; empty when it does not."""
    known = known_profiles()
    if set(profiles) & set(known):
        return ""
    return (
        f"the adapter claims no profile this suite knows: it claimed {list(profiles)}; "
        f"the suite knows {list(known)}"
    )


def adapter_problem(adapter: Adapter) -> tuple[str, Handshake | None]:
    """Why the adapter cannot be used (empty when it can), and its handshake when it
    completed one. The adapter is closed either way."""
    try:
        handshake = adapter.handshake
    except AdapterBroken as exc:
        return str(exc), None
    finally:
        adapter.close()
    return unknown_claims(handshake.profiles), handshake


def write_broken_reports(
    reason: str,
    handshake: Handshake | None,
    adapter_spec: str,
    report: str | None,
    junit: str | None,
    summary: str | None,
) -> None:
    implementation = handshake.implementation if handshake is not None else UNKNOWN_IMPLEMENTATION
    write_reports(
        Report(implementation=implementation, info=run_info(adapter_spec), broken=reason),
        report,
        junit,
        summary,
    )
