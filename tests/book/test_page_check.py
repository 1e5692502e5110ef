"""The page check (`llmcreativity_book.page_check`): a clean page reports nothing; each breakage a reader met in
the book (raw TeX, a story squeezed into a one-word column, a squeezed figure, a page that scrolls sideways, a
section of code that shows nothing), injected into a real built page, is reported by page and element; and every
page of the smoke replay's book reads well.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from llmcreativity.pipeline.execution import run
from llmcreativity.pipeline.stages import Stage
from llmcreativity_book import page_check
from llmcreativity_book.browser import Chromium, serve
from llmcreativity_book.page_check import DESKTOP, PHONE, Problem, book_pages, check_book, read_problems
from llmcreativity_book.site import build
from locations import TEST_DATA

TINY = TEST_DATA / "book" / "tiny_stage.md"
STAGES = [Stage("tiny", str(TINY), "Tiny", profiles={"default": {"n": 30}, "paper": {}})]
PAGE = "executed/tiny.html"
STORY = ("The ship woke before its crew did, and it spent the quiet hours counting the stars it had lost on the way "
         "out, one by one, until the first sleeper stirred and asked where they were.")

RAW_TEX = r"""
(() => {
  const p = document.createElement("p");
  p.textContent = "Its prompt holds $x, c$, its perspective $\\mathrm{top}_k(q_a^{(r)})$ and nothing else.";
  document.querySelector("main article section").appendChild(p);
})()
"""
"""A mutation: a paragraph whose dollar maths was never typeset (the judge-validation algorithm's steps 2 and 5)."""
NARROW_CELL = """
((story) => {
  const t = document.createElement("table");
  t.innerHTML = `<thead><tr><th>step</th><th style="width: 60px">text</th><th>note</th></tr></thead>`
    + `<tbody><tr><td>draft</td><td style="width: 60px">${story}</td>`
    + `<td>${"a wide note ".repeat(30)}</td></tr></tbody>`;
  t.style.tableLayout = "fixed";
  t.style.width = "100%";
  document.querySelector("main article section").appendChild(t);
})(STORY)
"""
"""A mutation: a story in a 60 px column beside a wide one (the Review chapter's "One prompt's journey")."""
SQUEEZED_FIGURE = """
(() => {
  const img = document.querySelector("main article img");
  img.style.width = Math.round(img.naturalWidth * 0.4) + "px";
  img.style.maxWidth = "none";
})()
"""
"""A mutation: the page's figure drawn at 40 % of its natural width (the semantic-entropy four-panel figure)."""
SIDEWAYS = """
(() => {
  const p = document.createElement("p");
  p.textContent = "x".repeat(400);
  p.style.whiteSpace = "nowrap";
  p.style.width = "max-content";
  document.querySelector("main article section").appendChild(p);
})()
"""
"""A mutation: a line that cannot wrap, 400 characters long (raw TeX past a phone's right edge)."""
NO_OUTPUT = """
(() => {
  const s = document.createElement("section");
  s.id = "a-lonely-section";
  const cells = Array.from(document.querySelectorAll("main article div.cell")).filter(c => c.querySelector("pre"));
  const cell = cells[cells.length - 1].cloneNode(true);  // recording the claim: code, not setup
  cell.querySelectorAll(".cell_output").forEach(o => o.remove());
  s.innerHTML = "<h2>A lonely section</h2><p>Code follows.</p>";
  s.appendChild(cell);
  document.querySelector("main article section").appendChild(s);
})()
"""
"""A mutation: a section with a heading and a code cell that shows nothing (the semantic-entropy section 9.7)."""


@pytest.fixture(scope="module")
def tiny_book(tmp_path_factory):
    """The HTML folder of a book built from the executed tiny stage."""
    out = tmp_path_factory.mktemp("page-check-book")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLMCREATIVITY_RESULTS", str(out / "results"))
        run("default", [], stages=STAGES, log=lambda _: None)
        yield build(out, "html", STAGES)


def mutated(html: Path, mutation: str, width: int = DESKTOP) -> list[Problem]:
    """The problems of the tiny chapter at `width` after `mutation` (a script) has changed it in the browser."""
    with serve(html) as base, Chromium() as browser:
        clean = page_check.page_problems(browser, base + PAGE, PAGE, width)
        browser.evaluate(mutation)
        found = read_problems(browser, PAGE, width)
    assert clean == [], clean
    return found


def test_the_pages_of_a_book_are_every_html_page_but_sphinx_s_own(tmp_path):
    for name in ("intro.html", "executed/review.html", "genindex.html", "search.html", "_static/x.html",
                 "_sources/intro.html"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<html></html>")
    (tmp_path / "index.html").write_text('<html><head><meta http-equiv="Refresh" content="0; url=intro.html" />')
    assert book_pages(tmp_path) == ["executed/review.html", "intro.html"]


def test_the_summary_counts_each_kind_and_lists_the_first_problems():
    problems = [Problem("a.html", DESKTOP, "tex", "<p>", '"$x$"')] * 3 + [Problem("b.html", PHONE, "sideways", "<p>",
                                                                               "the page is 900 px wide")]
    lines = page_check.summary(problems, shown=2)
    assert lines[0] == "page check: 4 problems (3 tex, 1 sideways)"
    assert lines[1] == '  - a.html @1280px tex: <p>: "$x$"' and len(lines) == 4 and "2 more" in lines[-1]
    assert page_check.summary([]) == ["page check: every page reads well at 1280 px and on a phone"]


def test_without_chromium_the_book_command_says_the_check_was_skipped_and_how_to_enable_it(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    said: list[str] = []
    assert page_check.report_book(tmp_path, said.append) is None
    assert said == [f"page check skipped: no Chromium; {page_check.HOW_TO_ENABLE}"]
    assert "scripts/setup_env.py --tests" in said[0]


@pytest.mark.kernel
def test_the_tiny_chapter_reads_well_at_a_desktop_and_a_phone_width(tiny_book):
    problems = check_book(tiny_book, [PAGE])
    assert problems == []


@pytest.mark.kernel
def test_raw_tex_is_reported_with_its_text_but_typeset_maths_is_not(tiny_book):
    found = mutated(tiny_book, RAW_TEX)
    assert [p.kind for p in found] == ["tex"], found
    assert "$x, c$" in found[0].detail and found[0].element.startswith("<p>") and "A tiny stage" in found[0].element


@pytest.mark.kernel
def test_a_story_in_a_narrow_table_cell_is_reported(tiny_book):
    found = mutated(tiny_book, NARROW_CELL.replace("STORY", json.dumps(STORY)))
    assert [p.kind for p in found] == ["narrow-cell"], found
    assert found[0].element.startswith("<td>") and "The ship woke" in found[0].detail


@pytest.mark.kernel
def test_a_squeezed_figure_is_reported_at_1280_px(tiny_book):
    found = mutated(tiny_book, SQUEEZED_FIGURE)
    assert [p.kind for p in found] == ["small-figure"], found
    assert "(40 %" in found[0].detail


@pytest.mark.kernel
@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_a_page_that_scrolls_sideways_is_reported_with_what_runs_past_the_edge(tiny_book, width):
    found = mutated(tiny_book, SIDEWAYS, width)
    assert [p.kind for p in found] == ["sideways"], found
    assert "<p>" in found[0].element + found[0].detail


@pytest.mark.kernel
def test_a_section_with_a_heading_and_code_but_no_output_is_reported(tiny_book):
    found = mutated(tiny_book, NO_OUTPUT)
    assert [(p.kind, p.element) for p in found] == [("no-output", '<h2> in "A lonely section"')], found


@pytest.mark.slow
@pytest.mark.kernel
def test_every_page_of_the_smoke_replay_s_book_reads_well(smoke_replay, tmp_path_factory):
    """The book built from the executed chapters of the smoke replay (the replay guard's, not a second one): no page
    has raw TeX, a story in a narrow cell, a squeezed figure, a sideways scroll or a section of code with no output."""
    out = tmp_path_factory.mktemp("smoke-book")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLMCREATIVITY_RESULTS", str(smoke_replay[2]))
        html = build(out, "html")
    pages = book_pages(html)
    assert {f"executed/{s}.html" for s in ("review", "judge_validation", "semantic_entropy")} <= set(pages)
    problems = check_book(html, pages)
    assert problems == [], "\n".join(page_check.summary(problems, shown=len(problems)))


def test_the_figure_rule_narrows_a_wide_figure_and_enlarges_text_too_small_to_read_on_the_page():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.text import Text

    from llmcreativity_book import display

    wide, axes = plt.subplots(1, 4, figsize=(18, 4), dpi=100)
    for ax in axes:
        ax.set_title("a panel", fontsize=6)
        ax.tick_params(labelsize=5)
    small, ax = plt.subplots(figsize=(4, 3), dpi=100)
    ax.set_title("fits", fontsize=10)
    display.fit_figure(wide)
    display.fit_figure(small)
    width, height = wide.get_size_inches()
    assert width * wide.dpi <= display.MAX_FIGURE_PX and height == 4
    shown = display.COLUMN_PX / (width * wide.dpi)  # the column's scaling of the narrowed figure
    texts = [t for t in wide.findobj(Text) if t.get_text()] + [t for a in wide.axes for t in a.get_xticklabels()]
    assert texts and min(t.get_fontsize() * wide.dpi / 72 * shown for t in texts) >= display.MIN_TEXT_PX - 1e-9
    assert tuple(small.get_size_inches()) == (4, 3) and small.axes[0].title.get_fontsize() == 10
    plt.close("all")


@pytest.mark.kernel
def test_a_printed_page_has_every_folded_block_open(tmp_path):
    """Paper cannot unfold a `<details>` block (the claims page folds each claim's estimator, sources and run): the
    PDF is printed with every one open."""
    (tmp_path / "folded.html").write_text("<html><body><h1>Claims</h1>"
                                          "<details><summary>Estimator</summary><p>paired t-test</p></details>"
                                          "<details><summary>Run</summary><p>run 1</p></details></body></html>")
    with serve(tmp_path) as base, Chromium() as browser:
        pdf = browser.print_pdf(f"{base}/folded.html", tmp_path / "folded.pdf")
        assert browser.evaluate("[...document.querySelectorAll('details')].map(d => d.open)") == [True, True]
    assert pdf.read_bytes().startswith(b"%PDF")
