"""The profiles as data: the files `pipeline/profiles/<name>.yaml`, their layers, and where a run's values come from."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch

import pytest

from llmcreativity import cli
from llmcreativity.paths import REPO_ROOT
from llmcreativity.pipeline import profile_files
from llmcreativity.pipeline.planning import plan
from llmcreativity.pipeline.profile_files import (
    PROFILE_DIR,
    PROFILES,
    ProfileFileError,
    layered,
    merged,
    origin,
    part,
    unknown_stages,
)
from llmcreativity.pipeline.stages import DECISIVE_CHANGES, STAGES
from llmcreativity.writing.decoding import CHOSEN_DECODING


@pytest.fixture(autouse=True)
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))


@pytest.fixture
def profile_dir(tmp_path, monkeypatch):
    """An empty folder read as the profile files' folder (the files read from it forgotten afterwards)."""
    folder = tmp_path / "profiles"
    folder.mkdir()
    monkeypatch.setattr(profile_files, "PROFILE_DIR", folder)
    profile_files._read.cache_clear()
    yield folder
    profile_files._read.cache_clear()


def test_every_profile_file_is_listed_and_sets_only_stages_of_the_table():
    assert sorted(p.stem for p in PROFILE_DIR.glob(f"*{profile_files.SUFFIX}")) == sorted(PROFILES)
    assert unknown_stages({s.name for s in STAGES}) == []
    assert all(tuple(s.profiles) == PROFILES for s in STAGES)


def test_the_profile_files_ship_with_the_package():
    data = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    patterns = data["llmcreativity.pipeline"]
    files = [str(p.relative_to(PROFILE_DIR.parent)) for p in PROFILE_DIR.iterdir()]
    assert files and all(any(fnmatch(f, pattern) for pattern in patterns) for f in files)


def test_a_profile_built_on_another_takes_the_parts_its_layers_name():
    for stage in (s.name for s in STAGES):
        assert layered("pilot", stage) == merged(part("published", "choices"), part("pilot", "sizes")).get(stage, {})
    assert layered("published", "semantic_entropy")["n_samples"] == 6
    assert layered("decisive", "semantic_entropy")["n_samples"] == 10  # its own change wins
    assert layered("decisive", "semantic_entropy")["n_problems"] == 6  # its own size wins
    assert layered("decisive", "semantic_entropy")["temperatures"] == [0.3, 1.5]  # the published run's size


def test_origin_names_the_file_and_part_that_set_a_value_last():
    assert origin("decisive", "semantic_entropy", "se_models") == "published.yaml, choices"
    assert origin("decisive", "semantic_entropy", "n_samples") == "decisive.yaml, changes"
    assert origin("decisive", "semantic_entropy", "n_problems") == "decisive.yaml, sizes"
    assert origin("decisive", "semantic_entropy", "temperatures") == "published.yaml, sizes"
    assert origin("decisive", "semantic_entropy", "seed") is None  # the notebook's


def test_a_null_in_a_profile_file_is_the_notebooks_none():
    assert layered("paper", "baselines")["n_categories"] is None
    assert layered("smoke", "writing_pilot")["decodings"] == ["none", "no-repeat-4gram"]  # "none" is a decoding


def test_the_re_decisions_writers_draw_with_the_writing_pilots_chosen_decoding():
    assert DECISIVE_CHANGES["baselines"]["decoding"] == DECISIVE_CHANGES["review"]["decoding"] == CHOSEN_DECODING


@pytest.mark.parametrize(("text", "message"), [
    ("layers: [p]\nrun: {}\np:\n  backends:\n    n_samples: 2\n    n_samples: 3\n", r"\['n_samples'\] written twice"),
    ("layers: []\nrun: {}\np:\n  backends:\n    n_samples: 2\n", r"the parts \['p'\] are not among its layers"),
    ("layers: [other.p]\nrun: {}\n", "no profile 'other'"),
    ("layers: [p, q]\nrun: {}\np: {}\n", "has no part 'q'"),
    ("layers: [p]\nrun: {}\np:\n  backends:\n    day: 2026-12-01\n", "p.backends.day: datetime.date"),
    ("run: {}\n", "needs `layers`"),
], ids=["a key twice", "a part not layered", "another profile missing", "a layer missing", "a date", "no layers"])
def test_a_profile_file_that_cannot_be_read_is_refused_naming_the_fix(profile_dir, text, message):
    (profile_dir / "x.yaml").write_text(text)
    with pytest.raises(ProfileFileError, match=message):
        layered("x", "backends")


def test_plan_names_the_file_and_part_of_each_profile_value_and_the_p_of_each_override():
    plans = {p.stage.name: p for p in plan("decisive", [("semantic_entropy.max_tokens", "20"), ("seed", "1")])}
    se = plans["semantic_entropy"]
    assert se.origin("se_models") == "profile decisive: published.yaml, choices"
    assert se.origin("n_samples") == "profile decisive: decisive.yaml, changes"
    assert se.origin("n_problems") == "profile decisive: decisive.yaml, sizes"
    assert se.origin("max_tokens") == "-p semantic_entropy.max_tokens"
    assert se.origin("seed") == "-p seed"
    assert se.origin("n_resamples") == "notebook default"
    [backends] = plan("smoke", [("model", "smollm2-135m")], "backends")
    assert backends.origin("writer") == "-p model"


def test_dry_run_says_where_each_value_comes_from(capsys):
    assert cli.main(["run", "--profile", "smoke", "--stage", "backends", "--dry-run", "-p", "temperatures",
                     "[0.1, 2.0]", "-p", "backends.seed", "3"]) == 0
    shown = {line.split("=")[0].strip(" *"): line.split("#", 1)[1].split("]")[0] + "]"
             for line in capsys.readouterr().out.splitlines() if line.startswith("  ") and " = " in line}
    assert shown["n_samples"] == " [profile smoke: smoke.yaml, parameters]"
    assert shown["temperatures"] == " [-p temperatures]"
    assert shown["seed"] == " [-p backends.seed]"
    assert shown["estimator"] == " [notebook default]"


def test_the_paper_profile_scores_the_summarys_unconditioned_surprisal_and_no_other_profile_does():
    from llmcreativity.pipeline.record_compare import resolved_parameters

    plans = {name: {p.stage.name: p for p in plan(name, [])} for name in PROFILES}
    for stage in ("corpus", "evaluation"):
        p = plans["paper"][stage]
        assert resolved_parameters(p)["surprisal_context"] == "none"
        assert p.origin("surprisal_context") == "profile paper: paper.yaml, parameters"
        assert p.declared["surprisal_context"].added  # a record made before it replays at its default
        for other in (name for name in PROFILES if name != "paper"):
            assert resolved_parameters(plans[other][stage])["surprisal_context"] == "prompt", (other, stage)


def test_a_surprisal_context_that_is_not_a_choice_is_refused_naming_the_choices():
    from llmcreativity.pipeline.parameters import ParameterError

    with pytest.raises(ParameterError, match=r"surprisal_context='story' is not one of \['prompt', 'none'\]"):
        plan("smoke", [("surprisal_context", "story")])
