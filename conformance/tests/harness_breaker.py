"""A pytest plugin (``-p harness_breaker``) that breaks the harness itself: comparing a
result raises ``FileNotFoundError``, as a bug of memspec's would."""

from __future__ import annotations

from typing import Any

import memspec.run.runner


def _broken(expected: Any, actual: Any) -> bool:
    raise FileNotFoundError(2, "No such file or directory", "/nonexistent/memspec-scratch")


memspec.run.runner.json_equal = _broken  # type: ignore[assignment]
