"""Read every page of a built book in headless Chromium, as a reader would, and name what is broken.

`check_book(html)` opens each page of a built book (`book_pages`) at a desktop's width (`DESKTOP`, 1280 px) and at a
phone's (`PHONE`, 390 px) and returns one `Problem` per broken element, by page and element:

- `tex`: visible text still holding TeX (`$x$`, `\\mathrm`, `^{`, `\\(`) outside code and outside typeset maths;
- `narrow-cell`: a table cell narrower than `NARROW_CHARS` characters holding running text (`RUNNING_WORDS` words
  or more: a story, a prompt), which the reader gets a word or two a line;
- `small-figure`: at 1280 px, a figure shown below `MIN_FIGURE_SCALE` of its natural width (its text shrinks with
  it; `llmcreativity_book.display.fit_figure` is the rule that keeps figures inside the column);
- `sideways`: the page scrolls sideways, or an element runs past the right edge of the screen (cut off);
- `no-output`: a section with a heading and a code cell shows no output at all (a parameters cell and a cell of
  imports alone are setup, expected to show nothing).

`report_book(html)` is what `llmcreativity book` runs on the book it has just built: a short list of the problems,
or a line saying the check was skipped (no Chromium) and how to enable it. From a shell:
`.venv/bin/python -m llmcreativity_book.page_check _build/html` (exit status 1 when a problem is found).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .browser import BrowserError, Chromium, find_chromium, serve

DESKTOP = 1280
"""A desktop's width in CSS pixels."""
PHONE = 390
"""A phone's width in CSS pixels (an iPhone 12 to 15; a 375 px phone lays the book out the same way)."""
NARROW_CHARS = 12
"""A table cell narrower than this many characters (widths of "0" in the cell's font) is too narrow for prose."""
RUNNING_WORDS = 10
"""A cell with at least this many words holds running text (a story, a prompt), not a label or a number."""
MIN_FIGURE_SCALE = 0.6
"""At 1280 px a figure shown below this fraction of its natural width has text too small to read."""
KINDS = {
    "tex": "unrendered TeX in visible text",
    "narrow-cell": "running text in a narrow table cell",
    "small-figure": "a figure squeezed below 60 % of its natural width",
    "sideways": "the page scrolls sideways or is cut off at the right edge",
    "no-output": "a section with a heading and code but no output",
}
"""Every kind of problem the check reports, with what it means."""
SKIPPED_PAGES = ("genindex.html", "search.html")
"""Pages Sphinx generates for navigation, not for reading."""
REDIRECT = re.compile(r"<meta[^>]+http-equiv=[\"']?refresh", re.IGNORECASE)
"""A page that only sends the browser on to another one."""
HOW_TO_ENABLE = "install Chromium with `python3 scripts/setup_env.py --tests` (or `apt-get install -y chromium`)"
"""What `report_book` tells a reader who has no Chromium."""
SHOWN = 12
"""Problems `report_book` lists before saying how many more there are."""


@dataclass(frozen=True)
class Problem:
    """One broken element of one page at one width."""

    page: str
    """The page, relative to the book's HTML folder (`executed/review.html`)."""
    width: int
    """The width in CSS pixels it was seen at."""
    kind: str
    """One of `KINDS`."""
    element: str
    """Which element: its tag and the section it stands in."""
    detail: str
    """What was measured or read (a text excerpt, widths)."""

    def __str__(self) -> str:
        return f"{self.page} @{self.width}px {self.kind}: {self.element}: {self.detail}"


_CHECK = r"""
((opts) => {
  const view = window.innerWidth;
  const root = document.querySelector("main article") || document.querySelector("article")
    || document.querySelector("main") || document.body;
  const problems = [];
  const clip = (s, n) => { s = s.replace(/\s+/g, " ").trim(); return s.length > n ? s.slice(0, n - 1) + "…" : s; };
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== "hidden";
  const headingText = (h) => clip(h.textContent.replace(/[#¶]/g, ""), 60);
  const sectionOf = (el) => {
    for (let s = el.closest("section"); s; s = s.parentElement.closest("section")) {
      const h = s.querySelector(":scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5, :scope > h6");
      if (h) return headingText(h);
    }
    return "";
  };
  const describe = (el) => {
    const cls = (el.getAttribute("class") || "").split(/\s+/).filter(Boolean).slice(0, 2).join(".");
    const section = sectionOf(el);
    return `<${el.tagName.toLowerCase()}${cls ? "." + cls : ""}>` + (section ? ` in "${section}"` : "");
  };
  const add = (kind, el, detail) => problems.push([kind, describe(el), detail]);

  if (opts.tex) {  // TeX left in the visible text
    const skip = "script, style, pre, code, kbd, samp, textarea, mjx-container, mjx-assistive-mml, .MathJax, "
      + ".highlight, .cell_input, .headerlink";
    const tex = /\$(?![\s\d.,;:)]|$)|\\[A-Za-z]{2,}|\^\{|_\{|\\[()[\]]/;
    const seen = new Set();
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const p = n.parentElement;
      if (!p || p.closest(skip) || !visible(p)) continue;
      const m = n.textContent.match(tex);
      if (!m) continue;
      const block = p.closest("p, li, td, th, dd, dt, h1, h2, h3, h4, h5, h6, figcaption, caption") || p;
      if (seen.has(block)) continue;
      seen.add(block);
      const at = Math.max(0, m.index - 30);
      add("tex", block, `"${clip(n.textContent.slice(at, m.index + 40), 70)}"`);
    }
  }

  if (opts.cells) {  // running text in a narrow table cell
    const canvas = document.createElement("canvas").getContext("2d");
    for (const cell of root.querySelectorAll("td, th")) {
      if (!visible(cell)) continue;
      const words = cell.textContent.trim().split(/\s+/).filter(Boolean).length;
      if (words < opts.runningWords) continue;
      const style = getComputedStyle(cell);
      canvas.font = style.font || `${style.fontSize} ${style.fontFamily}`;
      const zero = canvas.measureText("0").width || parseFloat(style.fontSize) * 0.55;
      const inner = cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      const chars = inner / zero;
      if (chars < opts.narrowChars) {
        add("narrow-cell", cell, `${Math.round(inner)} px (${chars.toFixed(1)} characters) wide holding ${words} `
          + `words, ${Math.round(cell.getBoundingClientRect().height)} px tall: "${clip(cell.textContent, 50)}"`);
      }
    }
  }

  if (opts.figures) {  // a figure squeezed below its natural width
    for (const img of root.querySelectorAll("img")) {
      if (!img.complete || img.naturalWidth < 100 || !visible(img)) continue;
      const shown = img.getBoundingClientRect().width;
      const scale = shown / img.naturalWidth;
      if (scale < opts.minScale) {
        const name = (img.getAttribute("src") || "").split("/").pop();
        add("small-figure", img, `${clip(name, 40)} shown ${Math.round(shown)} px of its ${img.naturalWidth} px `
          + `(${Math.round(scale * 100)} %; its text shrinks as much)`);
      }
    }
  }

  if (opts.sideways) {  // the page scrolls sideways, or content runs past the right edge
    const scrolls = (el) => {
      for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
        const o = getComputedStyle(a).overflowX;
        if (o === "auto" || o === "scroll") return true;
      }
      return false;
    };
    const out = (el) => {
      const r = el.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && (r.right > view + 1 || r.left < -1) && !scrolls(el)
        && !el.closest("mjx-assistive-mml") && visible(el);
    };
    const culprits = Array.from(root.querySelectorAll("*")).filter(out);
    const deepest = culprits.filter(el => !culprits.some(c => c !== el && el.contains(c)));
    const page = document.documentElement.scrollWidth;
    if (page > view + 1) {
      const first = deepest[0] || root;
      add("sideways", first, `the page is ${page} px wide on a ${view} px screen`
        + (deepest.length ? `; past the edge: ${deepest.slice(0, 3).map(describe).join(", ")}` : ""));
    } else {
      for (const el of deepest.slice(0, 3)) {
        const r = el.getBoundingClientRect();
        add("sideways", el, `runs from ${Math.round(r.left)} to ${Math.round(r.right)} px on a ${view} px screen `
          + `(cut off): "${clip(el.textContent, 50)}"`);
      }
    }
  }

  if (opts.outputs) {  // a section with a heading and code, but nothing the code shows
    for (const section of root.querySelectorAll("section")) {
      const h = section.querySelector(":scope > h1, :scope > h2, :scope > h3, :scope > h4, :scope > h5, :scope > h6");
      if (!h) continue;
      const own = (el) => el.closest("section") === section;
      const cells = Array.from(section.querySelectorAll("div.cell")).filter(own);
      const setup = (c) => c.matches(".tag_parameters, .tag_injected-parameters") || (c.querySelector(".cell_input pre")
        ?.textContent || "").split("\n").every(l => !l.trim() || /^(import |from |#|\s|\))/.test(l));
      const code = cells.filter(c => c.querySelector(".cell_input") && !setup(c));
      if (!code.length) continue;
      const shown = cells.some(c => Array.from(c.querySelectorAll(".cell_output")).some(
        o => o.textContent.trim() || o.querySelector("img, svg, canvas, table")));
      if (!shown) add("no-output", h, `"${headingText(h)}": ${code.length} code cell(s), no output`);
    }
  }
  return JSON.stringify(problems);
})(OPTIONS)
"""


def book_pages(html: Path) -> list[str]:
    """Every page of the built book in `html`, relative to it, in order (Sphinx's own folders, navigation pages and
    redirects such as the `index.html` that sends a reader to the root page left out)."""
    return sorted(p.relative_to(html).as_posix() for p in html.rglob("*.html")
                  if not any(part.startswith("_") for part in p.relative_to(html).parts)
                  and p.name not in SKIPPED_PAGES and not REDIRECT.search(p.read_text(errors="replace")[:2000]))


def page_problems(browser: Chromium, url: str, page: str, width: int) -> list[Problem]:
    """Load `url` at `width` (a phone's layout below `DESKTOP`) and return its problems, named by `page`.

    Text (`tex`) and code sections (`no-output`) are read at `DESKTOP` only (the same at every width); figures at
    `DESKTOP` only (a phone shows every figure at the screen's width by design); cells and the edges at both."""
    browser.set_width(width, phone=width < DESKTOP)
    browser.load(url)
    return read_problems(browser, page, width)


def read_problems(browser: Chromium, page: str, width: int) -> list[Problem]:
    """The problems of the page loaded in `browser`, as it stands now, laid out `width` px wide (`page_problems`)."""
    desktop = width >= DESKTOP
    opts = {"tex": desktop, "cells": True, "figures": desktop, "sideways": True, "outputs": desktop,
            "narrowChars": NARROW_CHARS, "runningWords": RUNNING_WORDS, "minScale": MIN_FIGURE_SCALE}
    found = json.loads(browser.evaluate(_CHECK.replace("OPTIONS", json.dumps(opts))))
    return [Problem(page, width, kind, element, detail) for kind, element, detail in found]


def check_book(html: Path, pages: Iterable[str] | None = None,
               widths: Sequence[int] = (DESKTOP, PHONE)) -> list[Problem]:
    """Every problem of every page (`book_pages`, or `pages`) of the built book in `html` at each of `widths`.
    Raises `BrowserError` when Chromium is missing or a page does not load."""
    pages = book_pages(html) if pages is None else list(pages)
    problems: list[Problem] = []
    with serve(html) as base, Chromium() as browser:
        for page in pages:
            for width in widths:
                problems += page_problems(browser, base + page, page, width)
    return problems


def summary(problems: Sequence[Problem], shown: int = SHOWN) -> list[str]:
    """Lines that say what the check found: a count per kind, then the first `shown` problems."""
    if not problems:
        return ["page check: every page reads well at 1280 px and on a phone"]
    counts = ", ".join(f"{sum(p.kind == k for p in problems)} {k}" for k in KINDS if any(p.kind == k for p in problems))
    lines = [f"page check: {len(problems)} problems ({counts})"]
    lines += [f"  - {p}" for p in problems[:shown]]
    if len(problems) > shown:
        lines.append(f"  ... and {len(problems) - shown} more: .venv/bin/python -m llmcreativity_book.page_check "
                     f"<the book's html folder>")
    return lines


def report_book(html: Path, say: Callable[[str], object] = print) -> list[Problem] | None:
    """Check the built book in `html` and `say` what was found (a short list); None, saying why, when it cannot be
    checked: no Chromium (and how to enable it), no page in `html`, or a page the browser could not load."""
    try:
        find_chromium()
    except BrowserError:
        say(f"page check skipped: no Chromium; {HOW_TO_ENABLE}")
        return None
    pages = book_pages(html) if html.is_dir() else []
    if not pages:
        say(f"page check skipped: no built page in {html}")
        return None
    try:
        problems = check_book(html, pages)
    except BrowserError as e:
        say(f"page check not finished: {e}")
        return None
    for line in summary(problems):
        say(line)
    return problems


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m llmcreativity_book.page_check HTML_FOLDER [PAGE ...]`: print every problem; 1 if there is one."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m llmcreativity_book.page_check HTML_FOLDER [PAGE ...]", file=sys.stderr)
        return 2
    html = Path(args[0])
    problems = check_book(html, args[1:] or None)
    print(summary(problems, shown=0)[0])
    for p in problems:
        print(f"  - {p}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
