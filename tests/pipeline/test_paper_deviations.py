"""The one declaration of the method's deviations from the papers, the chapters' notes read from it, and the claims
page's list."""

from __future__ import annotations

import re

import pytest

from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline import paper_deviations
from llmcreativity.pipeline.ledger import claims_markdown
from llmcreativity.pipeline.paper_deviations import (
    DEVIATIONS,
    NOTE_TITLE,
    deviation_note,
    deviations,
    deviations_markdown,
    surprisal_forms_markdown,
)
from llmcreativity.pipeline.parameters import parse_cli_value
from llmcreativity.pipeline.planning import declared_parameters
from llmcreativity.pipeline.profile_files import layered
from llmcreativity.pipeline.stages import STAGES

NOTE_CALL = re.compile(r'show_deviations\("(\w+)", "([\w-]+)"\)')
STAGE = {s.name: s for s in STAGES}


def note_cells() -> set[tuple[str, str]]:
    """(chapter, step) of every note cell of the stage notebooks, checked to be in its own chapter."""
    found = set()
    for stage in STAGES:
        for chapter, step in NOTE_CALL.findall((REPO_ROOT / stage.notebook).read_text()):
            assert chapter == stage.name, f"{stage.notebook} shows another chapter's note: {chapter}, {step}"
            found.add((chapter, step))
    return found


def test_every_declared_deviation_is_shown_beside_its_step_and_every_note_is_declared():
    declared = {(d.chapter, d.step) for d in DEVIATIONS}
    assert note_cells() == declared


def test_the_issue_s_five_deviations_are_declared_each_in_its_chapter():
    where = {d.id: d.chapter for d in DEVIATIONS}
    assert {"surprisal-context", "discussion-rounds", "scifi100-screen", "problems-per-domain",
            "entailment-clusters"} <= set(where)
    assert {d.chapter for d in DEVIATIONS if d.id == "surprisal-context"} == {"corpus", "evaluation"}


@pytest.mark.parametrize("d", DEVIATIONS, ids=[f"{d.chapter}-{d.id}" for d in DEVIATIONS])
def test_a_deviations_option_is_a_valid_value_of_its_chapters_parameter_and_its_profile_sets_it(d):
    assert d.chapter in STAGE and d.paper_does and d.project_does and d.why and d.source
    if not d.option:
        assert not d.profile
        return
    name, value = (x.strip() for x in d.option.split("=", 1))
    param = declared_parameters(STAGE[d.chapter])[name]
    parsed = parse_cli_value(param, value.strip('"'), STAGE[d.chapter].notebook)
    if d.profile:
        assert layered(d.profile, d.chapter)[name] == parsed


def test_a_note_is_an_admonition_with_every_deviation_of_its_step_and_a_typo_is_refused():
    note = deviation_note("evaluation", "novelty")
    assert note.startswith(f":::{{admonition}} {NOTE_TITLE}\n:class: note") and note.endswith(":::")
    for d in deviations("evaluation", "novelty"):
        assert d.project_does in note and d.paper_does in note and d.paper_form() in note
    assert "the `paper` profile selects it" in note
    with pytest.raises(ValueError, match=r"step 'surprise', has no deviation.*\['judge', 'novelty'\]"):
        deviation_note("evaluation", "surprise")


def test_the_claims_page_lists_each_deviation_once_linking_the_chapters_the_book_holds():
    page = deviations_markdown({"corpus"})
    items = [line for line in page.splitlines() if line.startswith("- ")]
    assert len(items) == len({d.id for d in DEVIATIONS})
    [surprisal] = [line for line in items if "Surprisal's context" in line]
    assert "{doc}`executed/corpus`" in surprisal and "`evaluation`" in surprisal
    assert "## How this project differs from the papers" in claims_markdown([])


def test_the_surprisal_forms_name_the_profiles_that_run_each(monkeypatch):
    shown = surprisal_forms_markdown("evaluation")
    prompt_part, none_part = shown.split('`surprisal_context = "none"`')
    assert "`paper`" in none_part and "`paper`" not in prompt_part and "`default`" in prompt_part
    assert r"x_j \mid x_{<j}" in none_part and r"\text{prompt}" in prompt_part
    # read from the profiles: a profile that set it otherwise would move
    monkeypatch.setattr(paper_deviations, "layered", lambda p, s: {"surprisal_context": "none"})
    assert "(profiles: none)" in surprisal_forms_markdown("evaluation").split("$$")[0]
