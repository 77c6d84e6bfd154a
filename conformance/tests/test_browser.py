"""The browser the page tests use (``browser``) sees what they assert on: what a page
logs, the viewport it is given, and nothing a page before it stored."""

from __future__ import annotations

import struct
from pathlib import Path

from browser import WINDOW, Browser

PAGE = """<!doctype html><html><body><script>
console.log("said", 2);
localStorage.setItem("k", (localStorage.getItem("k") || "") + "x");
document.body.dataset.stored = localStorage.getItem("k");
document.body.dataset.viewport = innerWidth + "x" + innerHeight;
document.body.dataset.ready = "1";
</script><img src="missing.png"><script>throw new Error("thrown")</script></body></html>
"""


def test_a_page_is_read_with_what_it_logged(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text(PAGE, encoding="utf-8")
    for _ in range(2):  # each page in a context of its own: nothing stored carries over
        loaded = browser.load(page.as_uri())
        assert 'data-stored="x"' in loaded.html and 'data-ready="1"' in loaded.html
        assert f'data-viewport="{WINDOW[0]}x{WINDOW[1]}"' in loaded.html
        assert sorted(loaded.console) == [
            f"error: Failed to load resource: net::ERR_FILE_NOT_FOUND {page.parent.as_uri()}"
            "/missing.png",
            f"exception: Error: thrown\n    at {page.as_uri()}:7:47",
            "log: said 2",
        ]


def test_a_screenshot_is_a_picture_of_the_viewport(browser: Browser, tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text('<body style="background: #c00" data-ready="1">red</body>', "utf-8")
    target = tmp_path / "shot.png"
    shown = browser.screenshot(page.as_uri(), target)
    png = target.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    assert struct.unpack(">II", png[16:24]) == WINDOW
    assert 'data-ready="1"' in shown.html and shown.console == []
