"""The whole book as one PDF: the single-page HTML build, printed by headless Chromium, offline.

The page is served on 127.0.0.1 and printed only after MathJax has typeset every formula, so the
PDF shows rendered math, figures and tables exactly as the HTML book does.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline.stages import Stage

from .browser import Chromium, serve
from .site import BuildError, build


def build_pdf(output: Path | None = None, stages: list[Stage] | None = None, config: Path | None = None,
              pages: Path | None = None, timeout: float = 300.0) -> Path:
    """Build `output/_build/singlehtml` and print it to `output/_build/pdf/book.pdf`; return the PDF path."""
    output = REPO_ROOT if output is None else output
    html = build(output, "singlehtml", stages, config, pages)
    root = yaml.safe_load((output / "_build" / "src" / "_toc.yml").read_text())["root"]
    page = html / f"{root}.html"
    if not page.exists():
        raise BuildError(f"the single-page build produced no {page}")
    target = output / "_build" / "pdf" / "book.pdf"
    with serve(html) as base, Chromium(timeout=timeout) as browser:
        browser.print_pdf(base + page.name, target)
    return target
