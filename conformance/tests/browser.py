"""Headless Chromium, started once per test process and driven over its DevTools pipe.

Each page is loaded in a browser context of its own (nothing a page stores is seen by
the next) into a viewport of ``WINDOW``; ``load`` returns the DOM once the page's load
event has fired, as ``--dump-dom`` does, with what the page logged to the console
(``console.*`` calls, uncaught exceptions, and the browser's own log entries for it,
such as a resource that failed to load). Without Chromium the tests that need it skip,
except under CI=true, where they fail.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["WINDOW", "Browser", "BrowserError", "Page", "chromium", "started"]

WINDOW = (1400, 1000)
_TIMEOUT_S = 120.0
_OPTIONS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)


class BrowserError(Exception):
    """The browser did not do what it was asked (its own log's tail is in the message)."""


@dataclass(frozen=True)
class Page:
    html: str
    """``document.documentElement.outerHTML`` after the load event."""
    console: list[str]
    """What the page logged, one line per message: ``level: text``."""


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    message = (
        "headless Chromium is needed for the browser tests and is not installed "
        "(apt-get install -y chromium)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def _above_stdio(fd: int) -> int:
    """``fd`` moved to a number that the child's 0 to 4 cannot clobber (close-on-exec)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


@dataclass
class Browser:
    pid: int
    commands: int
    """The pipe Chromium reads commands from (its fd 3)."""
    replies: int
    """The pipe Chromium writes replies and events to (its fd 4)."""
    log: Path
    _buffer: bytes = b""
    _pending: list[dict[str, Any]] = field(default_factory=list)
    _next_id: int = 0

    @classmethod
    def start(cls, executable: str, folder: Path) -> Browser:
        commands_r, commands_w = (_above_stdio(fd) for fd in os.pipe())
        replies_r, replies_w = (_above_stdio(fd) for fd in os.pipe())
        log = folder / "chromium.log"
        log_fd = _above_stdio(os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
        try:
            pid = os.posix_spawn(
                executable,
                [executable, *_OPTIONS, f"--user-data-dir={folder / 'profile'}", "about:blank"],
                dict(os.environ),
                file_actions=[
                    (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                    (os.POSIX_SPAWN_DUP2, log_fd, 1),
                    (os.POSIX_SPAWN_DUP2, log_fd, 2),
                    (os.POSIX_SPAWN_DUP2, commands_r, 3),
                    (os.POSIX_SPAWN_DUP2, replies_w, 4),
                ],
                setsid=True,
            )
        finally:
            for fd in (commands_r, replies_w, log_fd):
                os.close(fd)
        browser = cls(pid, commands_w, replies_r, log)
        try:
            browser.call("Browser.getVersion")
        except BaseException:
            browser.close()
            raise
        return browser

    def load(self, url: str) -> Page:
        return self._visit(url, None)

    def screenshot(self, url: str, target: Path) -> Page:
        """The viewport, as ``--screenshot --hide-scrollbars`` takes it, written to
        ``target`` (a PNG); and the page as ``load`` gives it."""
        return self._visit(url, target)

    def _visit(self, url: str, screenshot: Path | None) -> Page:
        with self._tab(hide_scrollbars=screenshot is not None) as session:
            console = self._navigate(session, url)
            html = self.call(
                "Runtime.evaluate",
                {"expression": "document.documentElement.outerHTML", "returnByValue": True},
                session,
            )["result"]["value"]
            if screenshot is not None:
                png = self.call("Page.captureScreenshot", {"format": "png"}, session)["data"]
                screenshot.write_bytes(base64.b64decode(png))
            return Page(str(html), console + self._console(session))

    @contextlib.contextmanager
    def _tab(self, hide_scrollbars: bool) -> Iterator[str]:
        context = self.call("Target.createBrowserContext")["browserContextId"]
        try:
            target = self.call(
                "Target.createTarget", {"url": "about:blank", "browserContextId": context}
            )["targetId"]
            session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
                "sessionId"
            ]
            for domain in ("Page", "Runtime", "Log"):
                self.call(f"{domain}.enable", {}, session)
            width, height = WINDOW
            self.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
                session,
            )
            if hide_scrollbars:
                self.call("Emulation.setScrollbarsHidden", {"hidden": True}, session)
            yield session
        finally:
            self.call("Target.disposeBrowserContext", {"browserContextId": context})
            self._pending = [event for event in self._pending if event.get("sessionId") is None]

    def _navigate(self, session: str, url: str) -> list[str]:
        navigated = self.call("Page.navigate", {"url": url}, session)
        if navigated.get("errorText"):
            raise BrowserError(f"{url}: {navigated['errorText']}")
        self._event("Page.loadEventFired", session)
        return self._console(session)

    def _console(self, session: str) -> list[str]:
        """The console messages of ``session`` received so far, taken from the queue."""
        lines, kept = [], []
        for event in self._pending:
            line = _console_line(event) if event.get("sessionId") == session else None
            if line is None:
                kept.append(event)
            else:
                lines.append(line)
        self._pending = kept
        return lines

    def call(self, method: str, params: dict[str, Any] | None = None, session: str = "") -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self.commands, data) :]
        deadline = time.monotonic() + _TIMEOUT_S
        while True:
            reply = self._message(deadline, method)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self._pending.append(reply)

    def _event(self, method: str, session: str) -> dict[str, Any]:
        deadline = time.monotonic() + _TIMEOUT_S
        for index, event in enumerate(self._pending):
            if event.get("method") == method and event.get("sessionId") == session:
                return self._pending.pop(index)
        while True:
            event = self._message(deadline, method)
            if event.get("method") == method and event.get("sessionId") == session:
                return event
            if "method" in event:
                self._pending.append(event)

    def _message(self, deadline: float, waiting_for: str) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.replies], [], [], max(0.0, left))
            if not ready:
                raise BrowserError(f"no answer to {waiting_for} in {_TIMEOUT_S:g} s{self._tail()}")
            chunk = os.read(self.replies, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium ended while {waiting_for} ran{self._tail()}")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return dict(json.loads(message))

    def _tail(self) -> str:
        try:
            return "; its log ends:\n" + self.log.read_text("utf-8", "replace")[-2000:]
        except OSError:
            return ""

    def close(self) -> None:
        with contextlib.suppress(BrowserError, OSError):
            self.call("Browser.close")
        for fd in (self.commands, self.replies):
            with contextlib.suppress(OSError):
                os.close(fd)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not _ended(self.pid):
            time.sleep(0.01)
        # The browser's helpers are in its session, whose id is the browser's pid while
        # the browser is not yet reaped: none may outlive it.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)


def _ended(pid: int) -> bool:
    """Whether the child ``pid`` has ended, leaving it to be reaped."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None


def _console_line(event: dict[str, Any]) -> str | None:
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.consoleAPICalled":
        words = [
            str(arg.get("value", arg.get("description", arg.get("type"))))
            for arg in params.get("args", [])
        ]
        return f"{params.get('type')}: {' '.join(words)}"
    if method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        thrown = details.get("exception", {}).get("description") or details.get("text")
        return f"exception: {thrown}"
    if method == "Log.entryAdded":
        entry = params.get("entry", {})
        return f"{entry.get('level')}: {entry.get('text')} {entry.get('url', '')}".rstrip()
    return None


@contextlib.contextmanager
def started(folder: Path) -> Iterator[Browser]:
    browser = Browser.start(chromium(), folder)
    try:
        yield browser
    finally:
        browser.close()
