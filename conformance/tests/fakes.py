"""In-process fake implementations of the toy ``demo`` profile, each with one flaw."""

from __future__ import annotations

from typing import Any


def start_reply(
    request_id: Any,
    name: str,
    profiles: list[str] | None = None,
    capabilities: tuple[str, ...] = (),
    *,
    version: str = "0",
    protocol: str = "1.0.0",
) -> dict[str, Any]:
    """The answer to ``start`` of a fake implementation."""
    return {
        "id": request_id,
        "result": {
            "implementation": {"name": name, "version": version, "language": "python"},
            "protocol_version": protocol,
            "profiles": profiles or ["demo"],
            "capabilities": list(capabilities),
        },
    }


class Echo:
    """Correct: answers demo.echo with its value."""

    name = "echo"

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        op, request_id = message["op"], message["id"]
        if op == "start":
            return start_reply(request_id, self.name)
        if op == "stop":
            return {"id": request_id, "result": None}
        if op == "demo.constants":
            return {"id": request_id, "result": {}}
        if op == "demo.echo":
            return self.echo(request_id, message["args"]["value"])
        return {"id": request_id, "error": {"kind": "unknown-op", "message": op}}

    def echo(self, request_id: Any, value: Any) -> dict[str, Any]:
        return {"id": request_id, "result": value}


class AlwaysWrong(Echo):
    """Answers every echo with the same wrong value."""

    def echo(self, request_id: Any, value: Any) -> dict[str, Any]:
        return {"id": request_id, "result": ["not", "it"]}


class RaisesOnBang(Echo):
    """Raises inside handle() for values starting with '!'."""

    def echo(self, request_id: Any, value: Any) -> dict[str, Any]:
        if isinstance(value, str) and value.startswith("!"):
            raise RuntimeError("boom")
        return super().echo(request_id, value)


class UnknownErrorKind(Echo):
    """Answers with an error kind outside the protocol's closed set."""

    def echo(self, request_id: Any, value: Any) -> dict[str, Any]:
        return {"id": request_id, "error": {"kind": "oops", "message": "made up"}}


class ClaimsNothing(Echo):
    """Claims no profile at all, so every case is not claimed."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["op"] == "start":
            reply = start_reply(message["id"], "claims-nothing")
            reply["result"]["profiles"] = []
            return reply
        return super().handle(message)


ECHO = Echo()


class Ordered(Echo):
    """Correct: answers demo.ordered with its value, its objects' members in order."""

    def handle(self, message: dict[str, Any]) -> dict[str, Any]:
        if message["op"] == "demo.ordered":
            return {"id": message["id"], "result": self.arrange(message["args"]["value"])}
        return super().handle(message)

    def arrange(self, value: Any) -> Any:
        return value


class ReversesMembers(Ordered):
    """Answers demo.ordered with the members of every object reversed: equal as JSON,
    wrong where the order counts."""

    def arrange(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self.arrange(item) for item in value]
        if isinstance(value, dict):
            return {key: self.arrange(value[key]) for key in reversed(list(value))}
        return value
