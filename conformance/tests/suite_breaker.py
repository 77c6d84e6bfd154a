"""A pytest plugin (``-p suite_breaker``) that breaks the harness under the suite's own
tests: every call a property, differential property or snapshot makes through the
adapter, and every check of a protocol reply against its schema, raises
``FileNotFoundError``, as a bug of memspec's would."""

from __future__ import annotations

from typing import Any

import memspec.suite._support
import memspec.wire.protocol


def _broken(*args: Any, **kwargs: Any) -> Any:
    raise FileNotFoundError(2, "No such file or directory", "/nonexistent/memspec-scratch")


memspec.suite._support.call_adapter = _broken  # type: ignore[assignment]
memspec.wire.protocol.message_errors = _broken  # type: ignore[assignment]
