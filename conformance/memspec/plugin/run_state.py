"""What one run was asked for (the ``--memspec-*`` options) and what it has found so far.

The plugin keeps one ``RunState`` per pytest process in the config's stash; the other
plugin modules read it through ``run_state``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from memspec.corpus.expectations import Expected, load_expectations
from memspec.corpus.profiles import selectable_profiles
from memspec.exceptions import UsageError
from memspec.observe.strace import unavailable_reason
from memspec.reports.report import CaseRecord
from memspec.reports.shard import parse_shard
from memspec.wire.adapters import (
    DEFAULT_START_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    Adapter,
    parse_tree_owner,
)
from memspec.wire.processes import own_threads

__all__ = [
    "HYPOTHESIS_PROFILES",
    "OPTIONS",
    "STATE",
    "RunState",
    "add_options",
    "asked_for",
    "check_writable",
    "is_worker",
    "option",
    "run_state",
]

# No example database: a conformance run must not leave .hypothesis/ wherever it starts.
_COMMON: dict[str, Any] = {
    "deadline": None,
    "database": None,
    "print_blob": False,
    "suppress_health_check": [HealthCheck.too_slow],
}
HYPOTHESIS_PROFILES: dict[str, dict[str, Any]] = {
    "memspec-dev": {"max_examples": 25},
    "memspec-ci": {"max_examples": 100, "derandomize": True},
    "memspec-thorough": {"max_examples": 1000},
}
for _name, _values in HYPOTHESIS_PROFILES.items():
    settings.register_profile(_name, None, **{**_COMMON, **_values})

OPTIONS = {
    "adapter": ("string", "reference (default), python:MODULE:ATTR or 'cmd:COMMAND LINE'"),
    "profile": ("args", "run only this profile (repeatable)"),
    "case": ("args", "run only the case with this exact id (repeatable)"),
    "op": ("args", "run only the cases that call this op (repeatable)"),
    "expectations": ("string", "TOML file of expected failures by case id, each with a reason"),
    "report": ("string", "write the JSON-lines report here"),
    "junit": ("string", "write JUnit XML here"),
    "summary": ("string", "write a Markdown summary here"),
    "timeout": ("string", f"seconds an adapter may take per call (default {DEFAULT_TIMEOUT_S:g})"),
    "start_timeout": (
        "string",
        f"seconds the adapter may take to start (default {DEFAULT_START_TIMEOUT_S:g})",
    ),
    "max_reply_bytes": ("string", "longest reply line accepted, in bytes (default 64 MiB)"),
    "tree_owner": (
        "string",
        "UID:GID the adapter runs as; every folder of the run is handed to it "
        "(the harness must run as root)",
    ),
    "export_failures": (
        "string",
        "write each failing property's shrunk input here as a fixture file",
    ),
    "case_lines": ("string", "print one line per case: its outcome and its id"),
    "write_expectations": (
        "string",
        "write every failing case (and every expected failure "
        "that still fails) to this TOML expectations file",
    ),
    "shard": ("string", "run only shard K of N (K/N): a deterministic slice by case id"),
    "label": ("string", "a name for this run, kept in the report header (such as a branch)"),
    "observer": (
        "string",
        "strace (the default, where it can run) or none: the harness fails the mutations "
        "of crash points itself by tracing the adapter's system calls",
    ),
}
_REPEATABLE = {"profile", "case", "op"}
_SUITE_DIR = Path(__file__).resolve().parent.parent / "suite"

STATE = pytest.StashKey["RunState"]()


def add_options(parser: pytest.Parser) -> None:
    """Every option as ``--memspec-NAME`` and as the ini value ``memspec_NAME``."""
    group = parser.getgroup("memspec", "memspec conformance suite")
    for name, (kind, text) in OPTIONS.items():
        flag = f"--memspec-{name.replace('_', '-')}"
        if name in _REPEATABLE:
            group.addoption(flag, dest=f"memspec_{name}", action="append", default=[], help=text)
        else:
            group.addoption(flag, dest=f"memspec_{name}", help=text)
        parser.addini(f"memspec_{name}", f"default for {flag}", type=kind)  # type: ignore[arg-type]


def option(config: pytest.Config, name: str) -> Any:
    """The option's value from the command line, else from the ini file, else None."""
    value = config.getoption(f"memspec_{name}")
    if value in (None, []):
        ini = config.getini(f"memspec_{name}")
        return ini or None
    return value


def asked_for(config: pytest.Config) -> bool:
    """Whether this run is a memspec run: an option was given, or the suite is collected."""
    if any(option(config, name) for name in OPTIONS):
        return True
    for argument in config.args:
        if argument.split("::")[0].replace("/", ".").startswith("memspec.suite"):
            return True
        path = Path(argument.split("::")[0])
        if path.exists() and (path.resolve() == _SUITE_DIR or _SUITE_DIR in path.resolve().parents):
            return True
    return False


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is a pytest-xdist worker (the controller writes the reports)."""
    return hasattr(config, "workerinput")


def run_state(config: pytest.Config) -> RunState:
    """This run's state; a usage error when the plugin is not active."""
    if STATE not in config.stash:
        raise pytest.UsageError(
            "the memspec suite runs only with the memspec plugin active "
            "(give --memspec-adapter, or collect --pyargs memspec.suite)"
        )
    return config.stash[STATE]


def _positive_seconds(text: str, name: str = "--timeout") -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{name} {text!r}: expected a number of seconds") from None
    if not (value > 0 and value != float("inf")):
        raise UsageError(f"{name} {text!r}: expected a positive, finite number of seconds")
    return value


def _positive_int(text: str, name: str) -> int:
    if not text.isdigit() or int(text) <= 0:
        raise UsageError(f"{name} {text!r}: expected a positive whole number")
    return int(text)


class RunState:
    """The options of one run, checked, and what the run has found so far."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.threads_at_start = own_threads()
        """This process's threads before any adapter ran: any other still running when
        the run ends may be the adapter's (``memspec.wire.processes.still_running``)."""
        self.adapter_spec: str = option(config, "adapter") or "reference"
        timeout = option(config, "timeout")
        self.timeout_s = _positive_seconds(str(timeout)) if timeout else DEFAULT_TIMEOUT_S
        start = option(config, "start_timeout")
        self.start_timeout_s = (
            _positive_seconds(str(start), "--start-timeout") if start else DEFAULT_START_TIMEOUT_S
        )
        limit = option(config, "max_reply_bytes")
        self.max_reply_bytes = _positive_int(str(limit), "--max-reply-bytes") if limit else None
        owner = option(config, "tree_owner")
        self.tree_owner = parse_tree_owner(owner) if owner else None
        self.profiles: list[str] = list(option(config, "profile") or [])
        known = selectable_profiles()
        for profile in self.profiles:
            if profile not in known:
                raise UsageError(f"unknown profile {profile!r}; known: {', '.join(known)}")
        self.case_ids: set[str] = set(option(config, "case") or [])
        self.ops: set[str] = set(option(config, "op") or [])
        expectations = option(config, "expectations")
        self.expectations: dict[str, Expected] = (
            load_expectations(
                Path(expectations), rewriting=bool(option(config, "write_expectations"))
            )
            if expectations
            else {}
        )
        self.export_failures = option(config, "export_failures")
        if self.export_failures:
            from memspec.run.calls import KEEP_TREES

            KEEP_TREES[0] = True
        self.records: dict[str, CaseRecord] = {}
        self.implementation: dict[str, Any] | None = None
        self.claims: dict[str, list[str]] | None = None
        self.label: str = option(config, "label") or ""
        self.observer: str = parse_observer(option(config, "observer"))
        self.broken: str = ""
        self.interrupted: str = ""
        self.problems: list[str] = []
        self.report_path = option(config, "report")
        self.junit_path = option(config, "junit")
        self.summary_path = option(config, "summary")
        self.case_lines = bool(option(config, "case_lines"))
        self.write_expectations_path = option(config, "write_expectations")
        shard = option(config, "shard")
        self.shard = parse_shard(str(shard)) if shard else None
        if not is_worker(config):
            check_distinct(
                {
                    name: option(config, name)
                    for name in ("report", "junit", "summary", "write_expectations", "expectations")
                }
            )
            for path in (
                self.report_path,
                self.junit_path,
                self.summary_path,
                self.write_expectations_path,
            ):
                if path:
                    check_writable(Path(path))

    def observer_off(self) -> str | None:
        """Why the harness does not observe the adapter's system calls in this run, or
        None when it does."""
        if self.observer == "none":
            return "--observer none"
        return unavailable_reason()

    def adapter(self) -> Adapter:
        return Adapter(
            self.adapter_spec,
            self.timeout_s,
            self.tree_owner,
            max_reply_bytes=self.max_reply_bytes,
            start_timeout_s=self.start_timeout_s,
        )


OBSERVERS = ("strace", "none")


def parse_observer(text: str | None) -> str:
    """``strace`` (also when not given) or ``none``; a usage error otherwise."""
    if text is None or text in OBSERVERS:
        return text or "strace"
    raise UsageError(f"--observer {text!r}: expected one of {', '.join(OBSERVERS)}")


def check_writable(path: Path) -> None:
    """Refuse a report path before the run, not after it: one line, a usage error."""
    if path.is_dir():
        raise UsageError(f"cannot write {path}: it is a directory")
    parent = path.parent
    if not parent.is_dir():
        raise UsageError(f"cannot write {path}: no directory {parent}")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from exc
    if not existed:
        # What the open made: the file a dangling symlink points to, not the link.
        Path(os.path.realpath(path)).unlink()


def check_distinct(paths: Mapping[str, str | None]) -> None:
    """Refuse two outputs on one file (one would overwrite the other), and a report
    written over the expectations file; the expectations may be rewritten in place."""
    seen: dict[str, str] = {}
    for name, path in paths.items():
        if not path:
            continue
        key = os.path.realpath(path)
        other = seen.get(key)
        if other is not None and {name, other} != {"expectations", "write_expectations"}:
            raise UsageError(
                f"--{other.replace('_', '-')} and --{name.replace('_', '-')} name the same "
                f"file {path}: give each its own"
            )
        seen[key] = name
