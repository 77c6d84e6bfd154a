"""A short check that an adapter speaks the protocol: broken, not non-conformant."""

from __future__ import annotations

from dataclasses import dataclass, field

from memspec import PROTOCOL_VERSION
from memspec.exceptions import AdapterBroken, AdapterFault
from memspec.plugin.preflight import unknown_claims
from memspec.wire.adapters import DEFAULT_TIMEOUT_S, Adapter

__all__ = ["SmokeResult", "smoke"]


@dataclass
class SmokeResult:
    adapter: str
    checks: list[tuple[str, bool, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(passed for _, passed, _ in self.checks)

    def add(self, name: str, passed: bool, detail: str = "") -> bool:
        self.checks.append((name, passed, detail))
        return passed


def smoke(spec: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> SmokeResult:
    """Handshake, an unknown op, each claimed profile's ``constants`` op, and stop.

    Nothing is checked after a failed handshake: there is no adapter to stop.
    """
    result = SmokeResult(spec)
    adapter = Adapter(spec, timeout_s)
    try:
        handshake = adapter.handshake
    except AdapterBroken as exc:
        result.add("start handshake", False, str(exc))
        return result
    try:
        implementation = handshake.implementation
        result.add(
            "start handshake",
            True,
            f"{implementation['name']} {implementation['version']} "
            f"({implementation['language']}), protocol {handshake.protocol_version} "
            f"(suite speaks {PROTOCOL_VERSION}), profiles {list(handshake.profiles)}",
        )
        unknown = unknown_claims(handshake.profiles)
        result.add("claims a profile the suite knows", not unknown, unknown)
        try:
            reply = adapter.call("nosuchprofile.nosuchop", {})
            result.add(
                "unknown op answered with error kind 'unknown-op'",
                reply.error_kind == "unknown-op",
                f"got {reply.error_kind or 'a result'}",
            )
        except AdapterFault as exc:
            result.add("unknown op answered with error kind 'unknown-op'", False, str(exc))
        for profile in handshake.profiles:
            name = f"{profile}.constants answered with an object"
            try:
                reply = adapter.call(f"{profile}.constants", {})
                result.add(
                    name,
                    isinstance(reply.result, dict) and not reply.is_error,
                    reply.error_message if reply.is_error else "",
                )
            except AdapterFault as exc:
                result.add(name, False, str(exc))
    finally:
        try:
            adapter.close()
            result.add("stop", True)
        except AdapterFault as exc:
            result.add("stop", False, str(exc))
    return result
