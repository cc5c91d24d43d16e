"""Running the app in a background thread and driving Debian's headless Chromium at it.

Used by ``arena screenshots`` and by the browser tests. Chromium is the system package
(``/usr/bin/chromium``), driven through Playwright's Python package with ``executable_path``: nothing
here downloads a browser.

Design detail: the app's socket is bound (to port 0) before uvicorn starts and handed to it, so the
URL is known without guessing a free port, and no other process can take the port in between.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import uvicorn

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT = 15.0  # seconds uvicorn may take to start listening


@contextlib.contextmanager
def serving(app: Any, host: str = "127.0.0.1") -> Iterator[str]:
    """Runs ``app`` with uvicorn in a daemon thread; yields its base URL, stops it on exit."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    until = time.monotonic() + START_TIMEOUT
    while not server.started:
        if not thread.is_alive() or time.monotonic() > until:
            raise RuntimeError("the leaderboard app did not start")
        time.sleep(0.05)
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """Yields a Playwright browser: Debian's headless Chromium, no download."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise RuntimeError(f"{CHROMIUM} is missing: install it with apt-get install chromium")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def open_page(browser: Any, url: str, width: int = 1280, height: int = 900) -> Any:
    """Returns a new page at ``url``, once the app's script has drawn it (``body[data-ready]``)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    page.wait_for_selector("body[data-ready='1']")
    return page


def screenshots(base_url: str, folder: Path, newest: dict[str, str]) -> list[Path]:
    """Writes PNGs of each game's leaderboard and of one replay per game (``newest``: game -> match
    id, shown at its middle frame with everything revealed); returns the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with chromium() as browser:
        page = open_page(browser, base_url + "/")
        written.append(_shot(page, folder / "games.png"))
        for game, match_id in newest.items():
            page = open_page(browser, f"{base_url}/games/{game}")
            written.append(_shot(page, folder / f"leaderboard-{game}.png"))
            page = open_page(browser, f"{base_url}/matches/{match_id}")
            last = int(page.get_attribute("#frame-slider", "max") or 0)
            page.fill("#frame-slider", str(last // 2))
            page.wait_for_selector(f".viewer[data-frame='{last // 2}']")
            written.append(_shot(page, folder / f"replay-{game}.png"))
    return written


def _shot(page: Any, path: Path) -> Path:
    """Returns ``path`` after writing a full-page PNG of ``page`` there and closing the page."""
    page.screenshot(path=str(path), full_page=True)
    page.close()
    return path
