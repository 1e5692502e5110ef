"""Ordering, parameter planning and papermill execution of the stage notebooks."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import nbformat
import pytest

from llmcreativity.llm import MODELS
from llmcreativity.pipeline.execution import StageFailed, _snapshot, run, run_stage, side_by_side
from llmcreativity.pipeline.manifest import ManifestEntry, read_manifest, update_manifest
from llmcreativity.pipeline.order import ordered_stages
from llmcreativity.pipeline.parameters import ParameterError
from llmcreativity.pipeline.planning import Plan, declared_parameters, plan
from llmcreativity.pipeline.publish import unexecuted_stages
from llmcreativity.pipeline.stages import RUN_SETTINGS, SMOKE_MODEL, STAGES, Stage
from llmcreativity_book.site import BuildError, stage_source
from locations import TEST_DATA

TINY = TEST_DATA / "book" / "tiny_stage.md"


def tiny(name: str = "tiny", depends: tuple[str, ...] = (), notebook: Path = TINY, **profile) -> Stage:
    profiles = {"default": profile, "paper": {"n": 500}, "smoke": {"n": 3}}
    return Stage(name, str(notebook), name.title(), depends, profiles)


@pytest.fixture(autouse=True)
def results(tmp_path, monkeypatch):
    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    return tmp_path / "results"


def test_ordered_stages_puts_dependencies_first():
    stages = [tiny("c", ("b",)), tiny("a"), tiny("b", ("a",))]
    assert [s.name for s in ordered_stages(stages)] == ["a", "b", "c"]


@pytest.mark.parametrize(("stages", "message"), [
    ([tiny("a", ("b",)), tiny("b", ("a",))], "cycle"),
    ([tiny("a", ("zzz",))], "unknown stage 'zzz'"),
])
def test_ordered_stages_rejects_bad_dependencies(stages, message):
    with pytest.raises(ValueError, match=message):
        ordered_stages(stages)


def test_plan_applies_notebook_defaults_then_profile_then_override():
    [p] = plan("default", [("scale", "3")], stages=[tiny(n=50)])
    assert p.parameters == {"n": 50, "scale": 3.0}
    [p] = plan("paper", [], stages=[tiny(n=50)])
    assert p.parameters == {"n": 500}


def test_plan_applies_a_stage_scoped_override_to_that_stage_only():
    plans = plan("default", [("b.n", "7")], stages=[tiny("a"), tiny("b")])
    assert [p.parameters for p in plans] == [{}, {"n": 7}]


def test_plan_reports_every_problem_before_running_anything():
    with pytest.raises(ParameterError) as err:
        plan("default", [("n", "1"), ("nope", "1"), ("words_file", "/no/such/file")], stages=[tiny(scale=-1.0)])
    text = str(err.value)
    assert "nothing was run" in text
    assert "scale=-1.0 is outside [0, None]" in text
    assert "n=1 is outside [2, 1000]" in text
    assert "-p nope: no selected stage declares a parameter 'nope'" in text
    assert "words_file='/no/such/file' does not exist; pass an existing path with -p words_file PATH" in text


def test_plan_rejects_a_profile_the_stage_lacks():
    with pytest.raises(ParameterError, match="stage 'tiny' has no profile 'huge'"):
        plan("huge", [], stages=[tiny()])


def test_plan_defers_missing_results_inputs_only_when_an_upstream_stage_runs_first(results):
    stages = [tiny("first"), tiny("second", ("first",))]
    plans = plan("default", [("second.words_file", "later.txt")], stages=stages)
    assert plans[1].parameters["words_file"] == "later.txt"
    with pytest.raises(ParameterError, match="stage 'first': words_file='later.txt' does not exist \\(looked under"):
        plan("default", [("first.words_file", "later.txt")], stages=stages)


@pytest.mark.parametrize("profile", ["default", "paper", "smoke", "pilot", "published"])
def test_registered_stages_plan_in_order_with_their_profile_values(profile):
    plans = plan(profile, [])
    assert [p.stage.name for p in plans] == [s.name for s in STAGES]  # STAGES is listed in dependency order
    planned: set[str] = set()
    for p in plans:
        assert set(p.stage.depends) <= planned, f"{p.stage.name} is planned before a stage it reads"
        planned.add(p.stage.name)
        assert p.profile == profile and p.settings == RUN_SETTINGS[profile]
        assert set(p.parameters) <= set(p.declared)
        assert {name: p.parameters[name] for name in p.stage.profiles[profile]} == p.stage.profiles[profile]


def test_smoke_plan_gives_every_model_role_the_smallest_model():
    with_roles = 0
    for p in plan("smoke", []):
        roles = {name: p.parameters.get(name, param.default) for name, param in p.declared.items()
                 if param.registry == "model"}
        specs = [spec for value in roles.values() for spec in ([value] if isinstance(value, str) else value) if spec]
        assert all(spec.endswith(SMOKE_MODEL) for spec in specs), (p.stage.name, roles)
        with_roles += bool(specs)
    assert with_roles >= len(plan("smoke", [])) - 1  # only the judge laboratory has no language model


@pytest.mark.kernel
def test_run_executes_with_parameters_and_adds_provenance(results):
    [entry] = run("default", [("scale", "2")], stages=[tiny(n=30)], log=lambda _: None)
    assert entry.status == "ok" and entry.parameters == {"n": 30, "scale": 2.0}
    nb = nbformat.read(results / "executed" / "tiny.ipynb", as_version=4)
    injected = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    assert "n = 30" in injected.source and "scale = 2.0" in injected.source
    provenance = nb.cells[-1].outputs[0]["data"]["text/markdown"]
    assert "| `n` | `30` |" in provenance and "| `scale` | `2.0` |" in provenance and "Packages: python" in provenance
    assert json.loads((results / "claims.jsonl").read_text())["n"] == 30
    assert unexecuted_stages([tiny(n=30)]) == []


@pytest.mark.kernel
def test_a_smoke_run_writes_notebooks_and_manifest_under_its_own_folder(results):
    [entry] = run("smoke", [], stages=[tiny()], log=lambda _: None)
    assert entry.profile == "smoke" and entry.parameters == {"n": 3}
    nb = nbformat.read(results / "smoke" / "executed" / "tiny.ipynb", as_version=4)
    assert "Stage `tiny`, profile `smoke`" in nb.cells[-1].outputs[0]["data"]["text/markdown"]
    assert read_manifest("smoke").stages["tiny"].status == "ok"
    assert not (results / "executed").exists() and read_manifest().stages == {}
    assert unexecuted_stages([tiny()]) == ["stage 'tiny' has not been executed; run `llmcreativity run --stage tiny`"]


@pytest.mark.kernel
def test_failing_cell_stops_the_run_naming_notebook_and_line(results):
    stages = [tiny("first"), tiny("second", ("first",))]
    with pytest.raises(StageFailed) as err:
        run("default", [("first.fail", "true")], stages=stages, log=lambda _: None)
    text = str(err.value)
    line = TINY.read_text().splitlines().index('assert not fail, "asked to fail"') + 1
    assert f"stage 'first' failed in {TINY} line {line}" in text and "AssertionError: asked to fail" in text
    assert (results / "executed" / "failed" / "first.ipynb").exists()
    assert not (results / "executed" / "second.ipynb").exists()
    assert read_manifest().stages["first"].status == "failed"
    expected = r"(?s)stage 'first' is failed \(AssertionError: asked to fail\).*stage 'second' has not been executed"
    with pytest.raises(BuildError, match=expected):
        stage_source(results / "src", stages)


@pytest.mark.kernel
def test_build_refuses_a_stage_whose_notebook_changed_after_it_ran(results, tmp_path):
    source = tmp_path / "copy.md"
    source.write_text(TINY.read_text())
    stages = [tiny(notebook=source)]
    run("default", [], stages=stages, log=lambda _: None)
    source.write_text(TINY.read_text() + "\nOne more sentence.\n")
    with pytest.raises(BuildError, match="changed after it was executed"):
        stage_source(results / "src", stages)


def test_running_one_stage_requires_its_dependencies_to_have_run():
    stages = [tiny("first"), tiny("second", ("first",))]
    with pytest.raises(ParameterError, match=r"stage 'second' reads the outputs of \['first'\]"):
        plan("default", [], only="second", stages=stages)


@pytest.mark.kernel
def test_one_stage_in_the_smoke_profile_runs_its_missing_upstream_stages_first_and_says_so(results):
    stages = [tiny("first"), tiny("second", ("first",))]
    said: list[str] = []
    first, second = run("smoke", [("n", "4"), ("first.scale", "2")], only="second", stages=stages, log=said.append)
    assert said[0] == ("stage 'second' reads the outputs of ['first'], which have not run successfully in the "
                       "'smoke' profile: running them first")
    assert [s for s in said if s.startswith("[")][0].startswith("[first] executing")
    # a bare -p applies to the stage asked for, as without upstream stages; STAGE.NAME to its stage
    assert (first.status, first.parameters) == ("ok", {"n": 3, "scale": 2.0})
    assert (second.status, second.parameters) == ("ok", {"n": 4})
    said.clear()
    assert [e.parameters for e in run("smoke", [], only="second", stages=stages, log=said.append)] == [{"n": 3}]
    assert not any("running them first" in s for s in said)


def test_missing_upstream_stages_are_found_through_each_other_and_a_stage_that_ran_is_not_run_again(results):
    stages = [tiny("a"), tiny("b", ("a",)), tiny("c", ("a", "b"))]
    assert [p.stage.name for p in plan("smoke", [], only="c", stages=stages, run_upstream=True)] == ["a", "b", "c"]
    update_manifest("a", ManifestEntry(status="ok"), "smoke")
    assert [p.stage.name for p in plan("smoke", [], only="c", stages=stages, run_upstream=True)] == ["b", "c"]


@pytest.mark.parametrize(("profile", "run_upstream"), [("default", True), ("paper", True), ("smoke", False)])
def test_a_real_profile_a_replay_or_an_export_still_refuses_a_stage_whose_upstream_has_not_run(profile, run_upstream):
    stages = [tiny("first"), tiny("second", ("first",))]
    with pytest.raises(ParameterError, match=r"stage 'second' reads the outputs of \['first'\].*run them first"):
        plan(profile, [], only="second", stages=stages, run_upstream=run_upstream)


def test_the_readers_exercise_plans_its_upstream_stages_in_the_smoke_profile(monkeypatch, capsys):
    from llmcreativity import cli

    assert cli.main(["run", "--stage", "semantic_entropy", "--profile", "smoke", "-p", "temperatures", "[0.1, 2.0]",
                     "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("stage 'semantic_entropy' reads the outputs of ['backends', 'baselines', 'review'], which "
                          "have not run successfully in the 'smoke' profile: running them first\n")
    planned = [ln.split()[0] for ln in out.splitlines() if ln.endswith(".md)")]
    assert planned == ["backends", "baselines", "review", "semantic_entropy"]
    temperatures = [ln.split("#")[0].split("=")[1].strip() for ln in out.splitlines()
                    if ln.strip().lstrip("* ").startswith("temperatures =")]
    assert temperatures == ["[0.3, 1.2]", "[0.1, 2.0]"]  # backends' own; the exercise's for semantic_entropy


def test_manifest_update_keeps_entries_written_by_another_run_meanwhile(results):
    from concurrent.futures import ThreadPoolExecutor

    def update(k: int) -> None:
        update_manifest(f"stage{k}", ManifestEntry(status="ok", run_id=f"run{k}"))

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(update, range(40)))
    assert sorted(read_manifest().stages) == sorted(f"stage{k}" for k in range(40))


def test_dry_run_planning_refuses_an_unknown_model_in_every_stage_naming_it():
    with pytest.raises(ParameterError) as err:
        plan("smoke", [("model", "qwen-nope"), ("embedder", "minilm")])
    text = str(err.value)
    for stage, role in (("backends", "writer"), ("semantic_entropy", "entailment_judge"),
                        ("judge_validation", "convergent_judge"), ("evaluation", "rubric_judge")):
        assert f"stage '{stage}': {role}='qwen-nope': unknown language model 'qwen-nope'" in text
    assert "stage 'semantic_entropy': se_models=['qwen-nope']: unknown language model 'qwen-nope'" in text
    for stage in ("scifi100", "baselines", "review", "corpus", "entailment_validation", "semantic_entropy",
                  "judge_validation"):
        assert f"stage '{stage}': embedder='minilm': unknown embedder 'minilm'" in text


def test_every_parameter_defaulting_to_a_registry_model_is_checked_against_the_registry():
    for stage in STAGES:
        for name, param in declared_parameters(stage).items():
            default = param.default if isinstance(param.default, list) else [param.default]
            if default and all(isinstance(d, str) and d in MODELS for d in default):
                kinds = {MODELS[d].kind for d in default}
                assert param.registry == {"causal-lm": "model", "embedder": "embedder"}[kinds.pop()], (stage.name, name)


COUNTED = TEST_DATA / "book" / "counted_stage.md"


@pytest.fixture
def counted(results, tmp_path, monkeypatch):
    """A stage whose kernel calls a scripted model through an empty call cache; its items are its records."""
    from dataclasses import replace

    from llmcreativity.output_files import OutputFile

    monkeypatch.setenv("LLMCREATIVITY_CACHE", str(tmp_path / "cache"))
    replies = OutputFile("records.jsonl", "the replies", items="records")
    return replace(tiny("counted", notebook=COUNTED), outputs=(replies,))


@pytest.mark.kernel
def test_the_manifest_entry_holds_the_kernels_calls_hits_tokens_and_items(results, counted):
    from llmcreativity.pipeline.run_report import read_run_report

    [cold] = run("default", [("n", "4")], stages=[counted], log=lambda _: None)
    [usage] = cold.usage
    assert (usage["identity"], usage["calls"], usage["cache_hits"]) == ("scripted", 4, 0)
    assert (usage["prompt_tokens"], usage["completion_tokens"]) == (4 * 3, 4 * 3)  # "prompt number k" -> 3 words
    assert (cold.items, cold.items_unit) == (4, "records")
    assert not any(rel.startswith("executed") or rel == "run_report.jsonl" for rel in cold.outputs)
    [warm] = run("default", [("n", "5")], stages=[counted], log=lambda _: None)
    [usage] = warm.usage
    assert (usage["calls"], usage["cache_hits"], usage["prompt_tokens"], usage["cached_prompt_tokens"]) \
        == (5, 4, 3, 4 * 3)
    [line] = read_run_report()
    assert (line.stage, line.status, line.run_id, line.items, line.lm_calls, line.lm_cache_hits) \
        == ("counted", "ok", warm.run_id, 5, 5, 4)
    assert line.seconds == warm.seconds > 0


@pytest.mark.kernel
def test_a_failed_stage_reports_the_calls_it_made_and_a_rerun_does_not_add_the_killed_attempts(results, counted):
    from llmcreativity.pipeline.run_report import read_run_report, usage_path

    with pytest.raises(StageFailed):
        run("default", [("fail", "true")], stages=[counted], log=lambda _: None)
    [line] = read_run_report()
    assert (line.status, line.lm_calls, line.lm_cache_hits, line.items) == ("failed", 3, 0, 0)
    usage_path("counted").write_text('{"identity": "stale", "kind": "language model", "calls": 99}\n')
    [entry] = run("default", [], stages=[tiny("counted")], log=lambda _: None)  # now a stage that calls no model
    assert entry.usage == [] and read_run_report()[0].lm_calls == 0


@pytest.mark.kernel
def test_cli_run_ends_with_the_table_of_its_stages_failed_ones_included(results, counted, monkeypatch, capsys):
    from llmcreativity import cli
    from llmcreativity.pipeline import order

    monkeypatch.setattr(order, "STAGES", [counted])
    assert cli.main(["run", "-p", "n", "2"]) == 0
    out = capsys.readouterr().out
    [line] = [ln for ln in out.splitlines() if ln.startswith("counted ")]
    assert line.split()[:5] == ["counted", "ok", line.split()[2], "2", "records"] and "2 (0)" in line
    assert "1 stage(s)" in out and str(results / "run_report.jsonl") in out
    assert cli.main(["run", "-p", "fail", "true"]) == 1
    captured = capsys.readouterr()
    [line] = [ln for ln in captured.out.splitlines() if ln.startswith("counted ")]
    assert line.split()[1] == "failed" and "3 (2)" in line
    assert "asked to fail" in captured.err


# -- run settings (dtype, device) ----------------------------------------------------------------------------
PINNED = {"dtype": "float32", "device": "cpu"}
SETTINGS = TEST_DATA / "book" / "settings_stage.md"


def test_the_recorded_profiles_pin_float32_on_the_cpu():
    for profile in ("default", "paper", "smoke"):
        assert {p.settings["dtype"] for p in plan(profile, [])} == {"float32"}
        assert {p.settings["device"] for p in plan(profile, [])} == {"cpu"}


def test_run_settings_are_auto_then_the_profiles_then_p_then_the_stage_scoped_p():
    [p] = plan("default", [], stages=[tiny()])
    assert p.settings == PINNED
    unlisted = Stage("u", str(TINY), "U", (), {"extra": {}})  # a profile without run settings: chosen per machine
    assert plan("extra", [], stages=[unlisted])[0].settings == {"dtype": "auto", "device": "auto"}
    [p] = plan("default", [("dtype", "bfloat16")], stages=[tiny()])
    assert p.settings == {"dtype": "bfloat16", "device": "cpu"}
    plans = plan("default", [("b.dtype", "auto"), ("dtype", "bfloat16")], stages=[tiny("a"), tiny("b")])
    assert [p.settings["dtype"] for p in plans] == ["bfloat16", "auto"]  # STAGE.dtype wins whatever its place
    assert all(p.parameters == {} for p in plans)  # a run setting is no notebook parameter


def test_bad_run_and_endpoint_settings_are_refused_before_anything_runs_naming_the_option_and_the_choices(
        monkeypatch):
    from llmcreativity.llm import device

    monkeypatch.setattr(device, "_torch_cuda_count", lambda: 0)
    with pytest.raises(ParameterError) as err:
        plan("default", [("dtype", "float16"), ("a.device", "gpu"), ("device", "cuda"), ("max_concurrency", "0"),
                         ("a.max_concurrency", "many"), ("api_key_env", "sk-secret-1")], stages=[tiny("a")])
    text = str(err.value)
    assert "-p dtype float16: dtype='float16': choose one of ['float32', 'bfloat16', 'auto']" in text
    assert "-p a.device gpu: device='gpu': choose one of ['auto', 'cpu', 'cuda', 'cuda:N']" in text
    assert "-p device cuda: device='cuda', but torch sees no CUDA device here" in text
    assert "-p max_concurrency: max_concurrency='0': give a whole number in [1, 256]" in text
    assert "-p a.max_concurrency: max_concurrency='many'" in text
    # an endpoint setting's value is not repeated: a key given by mistake for its variable's name is never shown
    assert "api_key_env is not the name of an environment variable" in text and "sk-secret-1" not in text
    monkeypatch.setattr(device, "_torch_cuda_count", lambda: 2)
    assert plan("default", [("device", "cuda:1")], stages=[tiny("a")])[0].settings["device"] == "cuda:1"


def test_a_profile_with_a_bad_run_setting_is_refused_naming_the_table(monkeypatch):
    from llmcreativity.pipeline import planning

    monkeypatch.setitem(planning.RUN_SETTINGS, "default", {"dtype": "half"})
    with pytest.raises(ParameterError, match=r"profile 'default', run settings in .*/default.yaml: dtype='half'"):
        plan("default", [], stages=[tiny()])


@pytest.mark.kernel
def test_the_kernel_gets_the_run_settings_and_the_manifest_records_them(results):
    stage = tiny("settings", notebook=SETTINGS)
    [entry] = run("default", [], stages=[stage], log=lambda _: None)
    assert entry.run_settings == PINNED and read_manifest().stages["settings"].run_settings == PINNED
    seen = json.loads((results / "settings.json").read_text())
    assert seen == {**PINNED, "identity": "transformers:smollm2-135m:float32:row-seeded", **ENDPOINT_DEFAULTS}
    [entry] = run("default", [("dtype", "bfloat16"), ("max_concurrency", "32"), ("api_key_env", "MY_KEY")],
                  stages=[stage], log=lambda _: None)
    assert entry.run_settings == {"dtype": "bfloat16", "device": "cpu"}
    assert entry.endpoint_settings == {"api_key_env": "MY_KEY", "max_concurrency": 32}
    seen = json.loads((results / "settings.json").read_text())
    assert seen["identity"] == "transformers:smollm2-135m:bfloat16:row-seeded"
    assert (seen["api_key_env"], seen["max_concurrency"]) == ("MY_KEY", 32)
    assert "max_concurrency" not in entry.parameters


# -- endpoint settings (api_key_env, max_concurrency) ---------------------------------------------------------------
ENDPOINT_DEFAULTS = {"api_key_env": "OPENAI_API_KEY", "max_concurrency": 8}


def test_endpoint_settings_are_run_wide_options_the_default_then_p_then_the_stage_scoped_p():
    assert plan("default", [], stages=[tiny()])[0].endpoint == ENDPOINT_DEFAULTS
    plans = plan("default", [("max_concurrency", "32"), ("b.max_concurrency", "2"), ("api_key_env", "MY_KEY")],
                 stages=[tiny("a"), tiny("b")])
    assert [p.endpoint for p in plans] == [{"api_key_env": "MY_KEY", "max_concurrency": 32},
                                           {"api_key_env": "MY_KEY", "max_concurrency": 2}]
    assert all("max_concurrency" not in p.parameters for p in plans)


def test_no_notebook_declares_an_endpoint_setting():
    for stage in STAGES:
        assert not {"api_key_env", "max_concurrency"} & set(declared_parameters(stage)), stage.name


def test_dry_run_prints_each_stages_run_settings(monkeypatch, capsys):
    from llmcreativity import cli
    from llmcreativity.pipeline import order

    monkeypatch.setattr(order, "STAGES", [tiny("a"), tiny("b")])
    assert cli.main(["run", "--dry-run", "-p", "b.device", "auto"]) == 0
    lines = [ln for ln in capsys.readouterr().out.splitlines() if "run settings" in ln]
    assert [ln.split("#")[0].strip() for ln in lines] == [
        "run settings {'dtype': 'float32', 'device': 'cpu'}", "run settings {'dtype': 'float32', 'device': 'auto'}"]


# -- stages side by side (a replay's, `run_side_by_side`) ------------------------------------------------------------
CONTEXT = TEST_DATA / "book" / "context_stage.md"


def _fake(name: str, depends: tuple[str, ...] = ()) -> Plan:
    return cast(Plan, SimpleNamespace(stage=SimpleNamespace(name=name, depends=depends)))


def test_side_by_side_starts_a_stage_once_its_upstream_ran_and_never_more_than_the_lanes():
    plans = [_fake("a"), _fake("b", ("a",)), _fake("c", ("a",)), _fake("d", ("b",)), _fake("e")]
    lock, events, now = threading.Lock(), [], [0]

    def run_one(p):
        with lock:
            events.append(("start", p.stage.name))
            now[0] += 1
            assert now[0] <= 2, events
        time.sleep(0.05)
        with lock:
            now[0] -= 1
            events.append(("end", p.stage.name))
        return p.stage.name

    assert side_by_side(plans, 2, run_one) == ["a", "b", "c", "d", "e"]  # in plan order
    at = {e: i for i, e in enumerate(events)}
    for p in plans:
        assert all(at[("end", up)] < at[("start", p.stage.name)] for up in p.stage.depends), events
    assert events[:2] in ([("start", "a"), ("start", "e")], [("start", "e"), ("start", "a")])  # e reads nothing
    assert at[("start", "b")] < at[("start", "c")]  # b has a stage downstream of it, c none


def test_each_stages_spot_check_runs_after_it_one_at_a_time_and_its_entry_is_the_checks():
    plans = [_fake("a"), _fake("b", ("a",)), _fake("c", ("a",)), _fake("d")]
    seconds = {"a": (1, 1), "b": (1, 50), "c": (1, 1), "d": (60, 1)}
    lock, events = threading.Lock(), []

    def job(kind):
        def run(p):
            with lock:
                events.append((kind, "start", p.stage.name))
            time.sleep(0.3 if (kind, p.stage.name) == ("check", "a") else 0.03)  # b's and c's checks wait on it
            with lock:
                events.append((kind, "end", p.stage.name))
            return f"{kind} {p.stage.name}"
        return run

    entries = side_by_side(plans, 2, job("stage"), job("check"), seconds,
                           when_alone=lambda: events.append(("alone", "", "")))
    assert entries == ["check a", "check b", "check c", "check d"]
    at = {e: i for i, e in enumerate(events)}
    for p in plans:
        assert at[("stage", "end", p.stage.name)] < at[("check", "start", p.stage.name)]
    checking = 0
    for kind, what, _ in events:
        checking += (kind == "check") * (1 if what == "start" else -1)
        assert checking <= 1, events  # one worker: one check at a time
    assert events[0][2] == "d" or events[1][2] == "d"  # the longest way (60 s) starts at once
    assert at[("check", "start", "b")] < at[("check", "start", "c")]  # b's check is the longer
    assert events.count(("alone", "", "")) == 1  # once, after the last stage's end: the checks may have every core
    assert max(at[("stage", "end", n)] for n in "abcd") < at[("alone", "", "")] < len(events) - 1


def test_a_spot_check_runs_beside_the_lanes_stages_not_in_one_of_their_lanes():
    plans = [_fake("a"), _fake("b", ("a",)), _fake("c")]
    hold = {"a": 0.01, "b": 0.3, "c": 0.3}
    lock, running, seen = threading.Lock(), {"stage": 0, "check": 0}, []

    def job(kind):
        def run(p):
            with lock:
                running[kind] += 1
                seen.append(dict(running))
            time.sleep(hold[p.stage.name] if kind == "stage" else 0.1)
            with lock:
                running[kind] -= 1
            return f"{kind} {p.stage.name}"
        return run

    assert side_by_side(plans, 2, job("stage"), job("check")) == ["check a", "check b", "check c"]
    assert max(s["stage"] for s in seen) == 2 and max(s["check"] for s in seen) == 1
    assert {"stage": 2, "check": 1} in seen  # a's check began while b and c ran: the worker does not wait for a lane


def test_after_a_failure_side_by_side_starts_nothing_more_lets_the_running_finish_and_raises_it():
    plans = [_fake("slow"), _fake("bad"), _fake("after", ("bad",)), _fake("later")]
    ran = []

    def run_one(p):
        if p.stage.name == "bad":
            raise StageFailed("bad failed")
        time.sleep(0.2)
        ran.append(p.stage.name)
        return p.stage.name

    with pytest.raises(StageFailed, match="bad failed"):
        side_by_side(plans, 2, run_one)
    assert ran == ["slow"]  # it finished; neither "after" nor "later" started


def test_a_stages_snapshot_within_its_folders_leaves_out_what_another_stage_writes_beside_it(results):
    for rel in ("mine/a.json", "mine-cache/b.npy", "other/c.json", "claims.jsonl"):
        (results / rel).parent.mkdir(parents=True, exist_ok=True)
        (results / rel).write_text("x")
    assert sorted(_snapshot("default", ("mine", "mine-cache"))) == ["mine-cache/b.npy", "mine/a.json"]
    assert sorted(_snapshot("default")) == ["mine-cache/b.npy", "mine/a.json", "other/c.json"]


@pytest.mark.kernel
def test_two_stages_side_by_side_overlap_and_each_kernel_gets_its_own_context(results):
    stages = [Stage(name, str(CONTEXT), name.title(), (), {"default": {}}) for name in ("left", "right")]
    plans = plan("default", [], None, stages)
    entries = side_by_side(plans, 2, lambda p: run_stage(p, log=lambda _: None, run_id="side", threads=1))
    assert [e.status for e in entries] == ["ok", "ok"]
    seen = {n: json.loads((results / n / "seen.json").read_text()) for n in ("left", "right")}
    assert {n: s["stage"] for n, s in seen.items()} == {"left": "left", "right": "right"}
    assert seen["left"]["start"] < seen["right"]["end"] and seen["right"]["start"] < seen["left"]["end"]
    assert {s["threads"] for s in seen.values()} == {os.environ.get("OMP_NUM_THREADS", "1")}
    # OpenBLAS's idle threads sleep at once in kernels that share the cores (`SHARED_CORES_ENV`)
    assert {s["openblas_timeout"] for s in seen.values()} == {os.environ.get("OPENBLAS_THREAD_TIMEOUT", "4")}
