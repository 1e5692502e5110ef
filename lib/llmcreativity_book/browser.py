"""Look at the built book in a real browser: headless Chromium driven over the DevTools protocol.

`serve(folder)` serves the built HTML on 127.0.0.1; `Chromium()` starts Debian's `chromium` with
networking side channels off and a fresh profile; `Chromium.inspect(url)` loads a page, waits for
MathJax, and reports every request the page made, whether each image loaded, whether any raw TeX
is left, and saves a screenshot; `Chromium.set_width` lays pages out at a desktop's or a phone's width and
`Chromium.layout()` reports which tables are wider than their column; `Chromium.print_pdf(url, path)` prints a page
to PDF.
"""

from __future__ import annotations

import base64
import contextlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import websocket

CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--no-default-browser-check",
                  "--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--window-size=1280,1400")
"""Flags for a quiet, offline headless Chromium (no sandbox: it runs as root in containers)."""
LOCAL_SCHEMES = ("file", "data", "blob", "about", "chrome", "devtools")
"""URL schemes that never leave the machine."""
LOCAL_HOSTS = ("127.0.0.1", "localhost", "[::1]", "::1")
"""Hosts that are this machine."""


class BrowserError(RuntimeError):
    """Chromium is missing, did not start, or a page did not load."""


@dataclass(frozen=True)
class PageReport:
    """What a page did when loaded in the browser."""

    url: str
    """The page loaded."""
    title: str
    """document.title after loading."""
    requests: tuple[str, ...]
    """Every URL the page requested, in order."""
    failed: tuple[str, ...]
    """Requests that failed or returned HTTP status >= 400."""
    images: tuple[tuple[str, bool], ...]
    """(src, loaded with a non-zero size) for every <img>."""
    math_nodes: int
    """Number of typeset MathJax containers."""
    raw_math: tuple[str, ...]
    """Text fragments still holding TeX delimiters such as `\\(` (empty when all math was typeset)."""
    screenshot: Path | None
    """PNG of the whole page (up to 8000 px tall), when one was asked for."""

    @property
    def external(self) -> tuple[str, ...]:
        """Requests that left the machine (anything not localhost, file, data, ...)."""
        return tuple(u for u in self.requests if not is_local(u))


def is_local(url: str) -> bool:
    """True for URLs that stay on this machine."""
    parts = urllib.parse.urlsplit(url)
    return parts.scheme in LOCAL_SCHEMES or parts.hostname in LOCAL_HOSTS


def find_chromium() -> str:
    """Path of the Chromium executable, or a BrowserError saying how to install it."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise BrowserError("Chromium not found: install it with `apt-get install -y chromium` "
                       "(or `python3 scripts/setup_env.py --tests`)")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve `folder` over HTTP on 127.0.0.1 (a free port) while the block runs; yields the base URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=str(folder)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


_WAIT_FOR_MATH = """
(async () => {
  if (!window.MathJax || !window.MathJax.startup) { return "no-mathjax"; }
  await window.MathJax.startup.promise;
  return "typeset";
})()
"""

_PAGE_FACTS = r"""
(() => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const raw = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (p && p.closest("script, style, pre, code, mjx-container, mjx-assistive-mml")) continue;
    const t = n.textContent;
    if (t.includes("\\(") || t.includes("\\[") || t.includes("$$")) raw.push(t.trim().slice(0, 80));
  }
  return JSON.stringify({
    title: document.title,
    images: Array.from(document.images).map(i => [i.currentSrc || i.src, i.complete && i.naturalWidth > 0]),
    math: document.querySelectorAll("mjx-container").length,
    raw: raw,
  });
})()
"""


_LAYOUT = """
((heading) => {
  const tables = Array.from(document.querySelectorAll("article table, main table"));
  const found = Array.from(document.querySelectorAll("h1, h2, h3")).find(h => h.textContent.includes(heading));
  return JSON.stringify({
    page: document.documentElement.scrollWidth, view: window.innerWidth,
    tables: tables.map(t => [t.scrollWidth, t.parentElement.clientWidth, t.querySelectorAll("thead th").length]),
    heading: found ? found.getBoundingClientRect().top + window.scrollY : null,
  });
})(%s)
"""


@dataclass(frozen=True)
class Layout:
    """How a page is laid out at the browser's current width (`Chromium.layout`)."""

    view: int
    """The viewport's width in CSS pixels."""
    page: int
    """The document's scroll width: above `view`, the page itself scrolls sideways."""
    tables: tuple[tuple[int, int, int], ...]
    """(scroll width, its container's client width, header cells) of every table in the page's content."""
    heading: float | None
    """Distance from the page's top to the first heading holding the text asked for (None: no such heading)."""

    @property
    def wide_tables(self) -> tuple[int, ...]:
        """Indices of the tables wider than their container (a reader scrolls them sideways)."""
        return tuple(i for i, (width, room, _) in enumerate(self.tables) if width > room)


class Chromium:
    """A headless Chromium with a fresh profile, driven over the DevTools protocol (one tab)."""

    def __init__(self, timeout: float = 60.0):
        self.timeout = timeout
        # Chromium's helper processes can still write to the profile for a moment after the main one exits.
        self._profile = tempfile.TemporaryDirectory(prefix="llmcreativity-chromium-", ignore_cleanup_errors=True)
        self._proc = subprocess.Popen(
            [find_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={self._profile.name}",
             "--remote-debugging-port=0", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        port_file = Path(self._profile.name) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout
        while not port_file.exists() or not port_file.read_text().strip():
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise BrowserError("Chromium did not start (no DevToolsActivePort); run it by hand with "
                                   f"{' '.join(CHROMIUM_FLAGS)} to see why")
            time.sleep(0.1)
        port = port_file.read_text().split()[0]
        self._ws = self._connect(f"http://127.0.0.1:{port}/json/list", deadline)
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        for domain in ("Page", "Network", "Runtime"):
            self.send(f"{domain}.enable")

    def _connect(self, listing: str, deadline: float) -> websocket.WebSocket:
        """Open the DevTools websocket of the first tab, retrying while the browser is still starting."""
        while True:
            try:
                with urllib.request.urlopen(listing, timeout=self.timeout) as r:
                    pages = [t for t in json.load(r) if t["type"] == "page"]
                if pages:
                    return websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=self.timeout,
                                                       suppress_origin=True)
                problem = "no tab open"
            except (OSError, websocket.WebSocketException) as e:
                problem = str(e)
            if time.monotonic() > deadline:
                self.close()
                raise BrowserError(f"could not connect to Chromium's DevTools at {listing}: {problem}")
            time.sleep(0.2)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the browser and delete its profile."""
        if getattr(self, "_ws", None) is not None:
            self._ws.close()
        if self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._proc.pid, signal.SIGKILL)  # helper processes of the same session
        self._profile.cleanup()

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Call a DevTools method and return its result; events that arrive meanwhile are kept."""
        self._next_id += 1
        call_id = self._next_id
        self._ws.send(json.dumps({"id": call_id, "method": method, "params": params or {}}))
        while True:
            message = json.loads(self._ws.recv())
            if message.get("id") == call_id:
                if "error" in message:
                    raise BrowserError(f"{method} failed: {message['error']}")
                return message.get("result", {})
            self._events.append(message)

    def _wait_for(self, event: str) -> None:
        deadline = time.monotonic() + self.timeout
        while not any(e.get("method") == event for e in self._events):
            if time.monotonic() > deadline:
                raise BrowserError(f"timed out after {self.timeout} s waiting for {event}")
            try:
                self._events.append(json.loads(self._ws.recv()))
            except websocket.WebSocketTimeoutException:
                continue

    def evaluate(self, expression: str) -> Any:
        """Evaluate JavaScript in the page (awaiting promises) and return its value."""
        result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"page script failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def load(self, url: str) -> None:
        """Navigate to `url` and wait until it has loaded and MathJax has finished typesetting."""
        self._events.clear()
        navigated = self.send("Page.navigate", {"url": url})
        if navigated.get("errorText"):
            raise BrowserError(f"could not load {url}: {navigated['errorText']}")
        self._wait_for("Page.loadEventFired")
        self.evaluate(_WAIT_FOR_MATH)
        self.evaluate("new Promise(r => setTimeout(r, 300))")  # let late image and font requests start
        self.send("Runtime.evaluate", {"expression": "1"})  # flush queued network events

    def set_width(self, width: int, *, phone: bool = False) -> None:
        """Lay pages out `width` CSS pixels wide from now on (DevTools' device-metrics override; `phone`: as a
        mobile viewport, so the theme's phone layout applies)."""
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": 844 if phone else 1400, "deviceScaleFactor": 1, "mobile": phone})

    def layout(self, heading: str = "") -> Layout:
        """The loaded page's widths and where its first heading containing `heading` starts."""
        facts = json.loads(self.evaluate(_LAYOUT % json.dumps(heading)))
        return Layout(facts["view"], facts["page"], tuple(tuple(t) for t in facts["tables"]), facts["heading"])

    def inspect(self, url: str, screenshot: Path | None = None) -> PageReport:
        """Load `url` and report its requests, images and math; optionally save a PNG screenshot."""
        self.load(url)
        facts = json.loads(self.evaluate(_PAGE_FACTS))
        if screenshot is not None:
            size = self.send("Page.getLayoutMetrics")["cssContentSize"]
            clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], 8000), "scale": 1}
            shot = self.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": clip})
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            screenshot.write_bytes(base64.b64decode(shot["data"]))
        requests = [e["params"]["request"]["url"] for e in self._events
                    if e.get("method") == "Network.requestWillBeSent"]
        ids = {e["params"]["requestId"]: e["params"]["request"]["url"] for e in self._events
               if e.get("method") == "Network.requestWillBeSent"}
        failed = [ids.get(e["params"]["requestId"], "?") for e in self._events
                  if e.get("method") == "Network.loadingFailed"]
        failed += [e["params"]["response"]["url"] for e in self._events
                   if e.get("method") == "Network.responseReceived" and e["params"]["response"]["status"] >= 400]
        return PageReport(url, facts["title"], tuple(requests), tuple(failed),
                          tuple((src, bool(ok)) for src, ok in facts["images"]), facts["math"],
                          tuple(facts["raw"]), screenshot)

    def print_pdf(self, url: str, target: Path) -> Path:
        """Load `url`, wait for MathJax, open every folded block (`<details>`: paper cannot be unfolded), and print it
        to a PDF file (A4, backgrounds on)."""
        self.load(url)
        self.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        pdf = self.send("Page.printToPDF", {"printBackground": True, "paperWidth": 8.27, "paperHeight": 11.69,
                                            "preferCSSPageSize": False, "displayHeaderFooter": False})
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(base64.b64decode(pdf["data"]))
        return target
