"""The built book: its table of contents, offline assets, claims page, a real browser, the PDF, the CLI.

A tiny executed notebook stands in for the pipeline; the real `_config.yml` and `book/` pages are built.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from llmcreativity import cli
from llmcreativity.claims.judge_validity import validity_path
from llmcreativity.jsonl import rewrite_jsonl
from llmcreativity.paths import PUBLISHED_RECORD, RECORDS, REPO_ROOT, results_root
from llmcreativity.pipeline import order
from llmcreativity.pipeline.claim_records import claims_path
from llmcreativity.pipeline.execution import LAST_RUN, remember_run, run
from llmcreativity.pipeline.ledger import FINDINGS_HEADING
from llmcreativity.pipeline.manifest import ManifestEntry, ReplayMark, update_manifest
from llmcreativity.pipeline.stages import Stage
from llmcreativity.record_file import read_record
from llmcreativity_book.browser import Chromium, is_local, serve
from llmcreativity_book.pdf import build_pdf
from llmcreativity_book.site import BuildError, build, mathjax_dir, toc
from locations import TEST_DATA

TINY = TEST_DATA / "book" / "tiny_stage.md"
STAGES = [Stage("tiny", str(TINY), "Tiny", profiles={"default": {"n": 30}, "paper": {}})]
SCREENSHOTS = REPO_ROOT / "_build" / "test-screenshots"


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """(output folder, HTML folder) of a book built from the executed tiny stage."""
    out = tmp_path_factory.mktemp("book")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLMCREATIVITY_RESULTS", str(out / "results"))
        run("default", [], stages=STAGES, log=lambda _: None)
        html = build(out, "html", STAGES)
        yield out, html


@pytest.fixture(scope="module")
def recorded_book(tmp_path_factory):
    """The HTML folder of a book whose claims page is built from the claims, judge agreements and stage runs that the
    published record holds (`published/run/record.json`: no model runs), beside the tiny executed stage."""
    out = tmp_path_factory.mktemp("recorded-book")
    record = read_record(REPO_ROOT / PUBLISHED_RECORD)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLMCREATIVITY_RESULTS", str(out / "results"))
        run("default", [], stages=STAGES, log=lambda _: None)
        entries = record.stages
        rewrite_jsonl(claims_path(), [c for e in entries.values() for c in e.claims])
        rewrite_jsonl(validity_path(), [v for e in entries.values() for v in e.judge_validity])
        for name, e in entries.items():
            update_manifest(name, ManifestEntry(status="ok", run_id=e.run_id, profile=record.profile,
                                                replay=ReplayMark(PUBLISHED_RECORD, "")))
        yield build(out, "html", STAGES)


WIDE_TABLE = """
(() => {
  const t = document.createElement("table");
  t.innerHTML = "<thead><tr>" + "<th>a_column_heading_with_no_space_to_wrap_at</th>".repeat(12) + "</tr></thead>";
  document.querySelector("article table, main table").parentElement.appendChild(t);
})()
"""
"""A mutation: a twelve-column table of unbreakable headings, appended where the page's tables stand."""


def test_toc_puts_one_chapter_per_stage_into_the_stages_part_of_the_template():
    stages = [Stage("a", "a.md", "A"), Stage("b", "b.md", "B", ("a",))]
    content = toc(stages)
    assert content["root"] == "intro"
    [part] = [p for p in content["parts"] if p["caption"] == "Stages"]
    assert part["chapters"] == [{"file": "executed/a"}, {"file": "executed/b"}]
    others = [c["file"] for p in content["parts"] if p is not part for c in p["chapters"]]
    assert others == ["start", "claims", "rerun", "glossary", "references", "history"]


def test_toc_template_without_a_stages_part_is_rejected(tmp_path):
    template = tmp_path / "_toc.yml"
    template.write_text("format: jb-book\nroot: intro\nparts:\n  - caption: Other\n    chapters: []\n")
    with pytest.raises(BuildError, match="caption: Stages"):
        toc([], template)


def test_mathjax_is_found_in_the_installed_package():
    assert (mathjax_dir() / "tex-chtml.js").stat().st_size > 100_000


@pytest.mark.kernel
def test_built_pages_load_no_remote_scripts_styles_or_images(book):
    _, html = book
    pages = sorted(html.rglob("*.html"))
    assert len(pages) >= 6
    remote = [(p.name, m) for p in pages
              for m in re.findall(r'<(?:script|link|img)[^>]+(?:src|href)="((?:https?:)?//[^"]+)"', p.read_text())]
    assert remote == []
    assert 'src="_static/mathjax/tex-chtml.js' in (html / "intro.html").read_text()


def test_claims_page_is_generated_from_the_recorded_claims(book):
    _, html = book
    text = (html / "claims.html").read_text()
    assert "SE rises with sampling temperature (a tiny check of the claims machinery)." in text
    assert "<strong>inconclusive</strong>" in text and "not run" in text


def test_claims_page_shows_the_run_report_with_the_total_time(book):
    _, html = book
    text = (html / "claims.html").read_text()
    assert "The run behind these verdicts" in text and "No run report" not in text
    assert re.search(r"<td><p>tiny</p></td>|<td>tiny</td>", text)
    assert re.search(r"The stages took \d+ seconds \([\d.]+ minutes\) in all", text)


@pytest.mark.kernel
def test_claims_page_lists_every_claim_with_a_forest_plot_and_fits_1280_px(book):
    from llmcreativity.pipeline.claim_table import CLAIMS

    _, html = book
    text = (html / "claims.html").read_text()
    assert all(f"<td><p>{claim_id}</p></td>" in text or f"<td>{claim_id}</td>" in text for claim_id in CLAIMS)
    with serve(html) as base, Chromium() as browser:
        report = browser.inspect(base + "claims.html", SCREENSHOTS / "claims.png")
        layout = browser.layout()
    assert report.images and all(ok for _, ok in report.images), report.images
    assert layout.view == 1280 and layout.page <= layout.view, layout
    assert len(layout.tables) == 3, layout  # the claims of paper A, of paper B, then the run report
    assert all(columns <= 7 for *_, columns in layout.tables) and layout.wide_tables == (), layout
    assert text.index("What this run found") < text.index("The verdicts") < text.index("How to read this page")


@pytest.mark.kernel
def test_the_published_claims_page_states_its_findings_first_and_fits_a_desktop_and_a_phone(recorded_book):
    """At 1280 px the findings start within the first screen and no table scrolls sideways; at 390 px (a phone)
    the page itself does not scroll sideways; an over-wide table appended to the page is caught."""
    heading = FINDINGS_HEADING.lstrip("# ")
    with serve(recorded_book) as base, Chromium() as browser:
        report = browser.inspect(base + "claims.html", SCREENSHOTS / "published-claims-1280.png")
        desktop = browser.layout(heading)
        browser.evaluate(WIDE_TABLE)
        mutated = browser.layout(heading)
        browser.set_width(390, phone=True)
        browser.inspect(base + "claims.html", SCREENSHOTS / "published-claims-390.png")
        phone = browser.layout(heading)
    assert report.images and all(ok for _, ok in report.images), report.images
    assert desktop.view == 1280 and desktop.page <= 1280 and len(desktop.tables) >= 3, desktop
    assert desktop.wide_tables == (), desktop
    assert desktop.heading is not None and desktop.heading < 900, desktop
    assert len(mutated.tables) == len(desktop.tables) + 1 and len(mutated.wide_tables) == 1, mutated  # caught
    assert phone.view == 390 and phone.page <= 390 and phone.heading is not None, phone


FIRST_SCREEN = """
(() => Array.from(document.querySelectorAll("main p, main td, main li, main h1, main h2"))
  .filter(e => e.getBoundingClientRect().top + window.scrollY < 900).map(e => e.innerText).join("\\n"))()
"""
"""The text of the page's paragraphs, table cells, list items and headings that begin within its first 900 px."""


@pytest.mark.kernel
def test_the_landing_page_names_both_papers_and_a_verdict_of_each_on_its_first_screen(recorded_book):
    """At 1280 px the landing page's first 900 px name both papers and, for each, a claim id with its verdict word,
    generated from the records (the claims page's verdicts); a phone shows its findings table without scrolling
    sideways."""
    verdicts = "supported|not supported|inconclusive|judge not validated|not testable here"
    with serve(recorded_book) as base, Chromium() as browser:
        browser.inspect(base + "intro.html", SCREENSHOTS / "intro-1280.png")
        first = browser.evaluate(FIRST_SCREEN)
        browser.set_width(390, phone=True)
        browser.inspect(base + "intro.html", SCREENSHOTS / "intro-390.png")
        phone = browser.layout()
    assert "LLM Review" in first and "Automated creativity evaluation" in first, first
    for paper in "AB":
        assert re.search(rf"\b{paper}\d+\b[^.;]*?\b({verdicts})\b", first), (paper, first)
    assert phone.page <= 390 and phone.wide_tables == (), phone


@pytest.mark.kernel
def test_book_in_headless_chromium_loads_figures_typesets_math_and_stays_local(book):
    _, html = book
    with serve(html) as base, Chromium() as browser:
        reports = [browser.inspect(base + page, SCREENSHOTS / f"{page.replace('/', '_')}.png")
                   for page in ("intro.html", "executed/tiny.html")]
    intro, results_page = reports
    for report in reports:
        assert report.external == (), f"{report.url} requested {report.external}"
        assert all(is_local(u) for u in report.requests)
        assert [u for u in report.failed if not u.endswith("/favicon.ico")] == []
        assert report.raw_math == (), f"{report.url} shows raw TeX: {report.raw_math}"
        assert report.math_nodes > 0
        assert report.screenshot.stat().st_size > 10_000
    assert any("mathjax/tex-chtml.js" in u for u in intro.requests)
    assert results_page.images and all(ok for _, ok in results_page.images), results_page.images


@pytest.mark.kernel
def test_pdf_command_prints_the_whole_book(book):
    out, _ = book
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LLMCREATIVITY_RESULTS", str(out / "results"))
        pdf = build_pdf(out, STAGES)
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page\b", data)) >= 4


def test_cli_dry_run_prints_parameters_and_a_bad_value_exits_2(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path))
    monkeypatch.setattr(order, "STAGES", STAGES)
    assert cli.main(["run", "--dry-run", "-p", "scale", "2"]) == 0
    out = capsys.readouterr().out
    assert "* n = 30" in out and "* scale = 2.0" in out and "  fail = False" in out
    assert cli.main(["run", "-p", "n", "many"]) == 2
    assert "n expects int, got 'many'" in capsys.readouterr().err


def test_cli_build_refuses_when_stages_have_not_run(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path))
    monkeypatch.setattr(order, "STAGES", STAGES)
    assert cli.main(["build", "--output", str(tmp_path)]) == 1
    assert "stage 'tiny' has not been executed" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["build", "pdf"])
def test_build_and_pdf_read_the_results_of_the_last_run(monkeypatch, tmp_path, capsys, command):
    """`make pdf` right after `make book` prints the pages the book was built from: the last run's results folder
    (`results/replay/` after the replay), not the default profile's `results/`; a results folder the user set wins."""
    monkeypatch.setattr("llmcreativity.paths.REPO_ROOT", tmp_path)
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results" / "replay"))
    (tmp_path / "results" / "replay").mkdir(parents=True)
    remember_run()  # as `llmcreativity run --replay` does before its first stage
    monkeypatch.delenv("LLMCREATIVITY_RESULTS")
    read: list[Path] = []
    monkeypatch.setattr("llmcreativity_book.site.build", lambda output=None: read.append(results_root()) or tmp_path)
    monkeypatch.setattr("llmcreativity_book.pdf.build_pdf", lambda output=None: read.append(results_root()) or tmp_path)
    assert cli.main([command]) == 0
    assert read == [tmp_path / "results" / "replay"]
    assert f"building from {tmp_path / 'results' / 'replay'}" in capsys.readouterr().out
    (tmp_path / "results" / LAST_RUN).unlink()  # no run noted: the default results folder
    monkeypatch.delenv("LLMCREATIVITY_RESULTS")
    assert cli.main([command]) == 0 and read[-1] == tmp_path / "results"
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "mine"))
    remember_run()
    (tmp_path / "mine" / LAST_RUN).write_text(f"{tmp_path / 'results' / 'replay'}\n")
    assert cli.main([command]) == 0 and read[-1] == tmp_path / "mine"  # set by the user: read as set


@pytest.mark.parametrize("complete", [("decisive", "published"), ("published",), ()])
def test_make_book_replays_the_newest_complete_record(monkeypatch, capsys, complete):
    """`llmcreativity book` (`make book`): the claims' re-decision's record when it is complete, else the published
    run's, else the default profile live, saying which record lacks what; the book is built after any of them."""
    ran: list = []
    folders = {REPO_ROOT / RECORDS[p][0]: p for p in RECORDS}
    monkeypatch.setattr("llmcreativity.pipeline.record_compare.unreplayable_stages",
                        lambda folder, plans: {} if folders[folder] in complete else {"evaluation": "not recorded yet"})
    monkeypatch.setattr(cli, "_run", ran.append)
    monkeypatch.setattr("llmcreativity_book.site.build", lambda: Path("built"))
    assert cli.main(["book"]) == 0
    [args] = ran
    out = capsys.readouterr().out
    assert f"book built: {Path('built') / 'index.html'}" in out
    if not complete:
        assert args.replay is None and args.from_record is None and args.profile == "default"
        assert "the record published/run is not complete (evaluation: not recorded yet)" in out
        assert "no record is complete: running the default profile live" in out
    else:
        assert args.replay == REPO_ROOT / RECORDS[complete[0]][0]
        assert ("published/decisive is not complete" in out) == (complete[0] != "decisive")
        assert "published/run is not complete" not in out
