"""Reading a notebook's parameters cell and checking values against it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from llmcreativity.pipeline.parameters import (
    ParameterError,
    check_value,
    missing_path,
    parse_cli_value,
    parse_parameters,
    registry_problems,
    unstated_kinds,
)

CELL = '''smoke: bool = False
n: int = 10  # range: [1, 100]
temperature: float = 0.8  # range: [0, 2]
judge: str = "rubric"  # choices: ["rubric", "chateval"]
models: list[str] = ["a", "b"]
limit: int | None = None
stories_path: str = "results/stories.jsonl"
plain = 3
'''


@pytest.fixture
def params():
    return parse_parameters(CELL, "nb.md")


def test_parse_reads_types_defaults_and_constraints(params):
    assert params["n"].kind is int and params["n"].default == 10
    assert (params["n"].low, params["n"].high) == (1, 100)
    assert params["judge"].choices == ("rubric", "chateval")
    assert params["models"].kind is list
    assert params["limit"].optional and params["limit"].kind is int
    assert params["plain"].kind is int  # inferred from the default without an annotation
    assert params["stories_path"].is_input_path


def test_parse_reads_a_comment_from_the_comment_lines_directly_above_the_parameter():
    cell = ('n: int = 2  # range: [1, 9]\n'
            '# how many; the choices span two lines:\n'
            '# choices: ["first", "second",\n'
            '#           "third"]\n'
            'pick: str = "first"  # registry: model\n'
            '\n'
            '# range: [0, 1]\n'
            '\n'
            'free: float = 5.0\n')
    params = parse_parameters(cell, "nb.md")
    assert (params["n"].low, params["n"].high, params["n"].choices) == (1, 9, None)
    assert params["pick"].choices == ("first", "second", "third") and params["pick"].registry == "model"
    assert params["free"].low is None  # a comment cut off by a blank line belongs to no parameter


def test_parse_rejects_a_non_literal_default():
    with pytest.raises(ParameterError, match="nb.md, parameter 'x'.*not a plain literal"):
        parse_parameters("x: int = len('ab')", "nb.md")


def test_parse_rejects_a_default_outside_its_own_range():
    with pytest.raises(ParameterError, match="outside"):
        parse_parameters("n: int = 0  # range: [1, 5]", "nb.md")


def test_check_value_widens_int_to_float(params):
    assert check_value(params["temperature"], 1, "test") == 1.0


def test_check_value_rejects_bool_for_int(params):
    with pytest.raises(ParameterError, match="n=True is a bool"):
        check_value(params["n"], True, "test")


def test_check_value_rejects_out_of_range_naming_range_and_fix(params):
    expected = r"temperature=2.5 is outside \[0, 2\]; give temperature a value of type float"
    with pytest.raises(ParameterError, match=expected):
        check_value(params["temperature"], 2.5, "profile paper")


def test_check_value_rejects_value_not_in_choices(params):
    with pytest.raises(ParameterError, match="not one of"):
        check_value(params["judge"], "vote", "test")


def test_check_value_rejects_none_unless_optional(params):
    assert check_value(params["limit"], None, "test") is None
    with pytest.raises(ParameterError, match="may not be None"):
        check_value(params["n"], None, "test")


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("smoke", "true", True), ("smoke", "0", False), ("n", "42", 42), ("temperature", "1", 1.0),
    ("models", "[x, y]", ["x", "y"]), ("judge", "chateval", "chateval"), ("limit", "None", None),
    ("stories_path", "123", "123"),
])
def test_parse_cli_value_converts_to_declared_type(params, name, text, expected):
    value = parse_cli_value(params[name], text, "-p")
    assert value == expected and type(value) is type(expected)


def test_parse_cli_value_rejects_bad_number_with_an_example(params):
    with pytest.raises(ParameterError, match="n expects int, got 'ten'; e.g. -p n 10"):
        parse_cli_value(params["n"], "ten", "-p n")


def test_missing_path_reports_absent_input_and_ignores_empty(params, tmp_path):
    assert missing_path(params["stories_path"], str(tmp_path / "nope.jsonl")) == tmp_path / "nope.jsonl"
    assert missing_path(params["stories_path"], "pyproject.toml") is None  # relative to the project root
    assert missing_path(params["stories_path"], str(tmp_path)) is None
    assert missing_path(params["stories_path"], "") is None


@given(st.integers(min_value=-1000, max_value=1000))
def test_range_accepts_exactly_the_values_inside(value):
    param = parse_parameters("k: int = 5  # range: [1, 10]", "nb.md")["k"]
    if 1 <= value <= 10:
        assert check_value(param, value, "test") == value
    else:
        with pytest.raises(ParameterError):
            check_value(param, value, "test")


MODELS_CELL = '''model: str = "smollm2-135m"  # registry: model
judges: list = ["smollm2-135m"]  # registry: model
embedder: str = "all-minilm-l6-v2"  # registry: embedder
nli_model: str = ""  # registry: model
'''


def test_parse_reads_model_roles():
    params = parse_parameters(MODELS_CELL, "nb.md")
    assert (params["model"].registry, params["embedder"].registry, params["judges"].registry) == (
        "model", "embedder", "model")
    assert "a model role: a local model name or URL#MODEL" in params["model"].describe()


def test_registry_problems_name_each_unknown_or_wrong_kind_model_and_the_fix():
    params = parse_parameters(MODELS_CELL, "nb.md")
    assert registry_problems(params, {}, "stage 's'") == []
    problems = registry_problems(params, {"model": "gpt-9", "judges": ["smollm2-135m", "all-minilm-l6-v2"],
                                          "embedder": "smollm2-135m"}, "stage 's'")
    assert len(problems) == 3
    assert problems[0].startswith("stage 's': model='gpt-9': unknown language model 'gpt-9'")
    assert "smollm2-135m" in problems[0] and problems[0].endswith("pass another with -p model NAME")
    assert "model 'all-minilm-l6-v2' is an embedder: use get_embedder" in problems[1]
    assert "model 'smollm2-135m' is a language model: use get_backend" in problems[2]


def test_an_endpoint_spec_is_not_checked_against_the_registry_but_must_be_well_formed(tmp_path):
    params = parse_parameters(MODELS_CELL, "nb.md")
    assert registry_problems(params, {"model": "http://127.0.0.1:8000/v1#gpt-4o",
                                      "judges": ["https://api.example/v1#a", "smollm2-135m"]}, "s") == []
    assert registry_problems(params, {"model": str(tmp_path), "judges": ["org/some-model"]}, "s") == []
    (problem,) = registry_problems(params, {"model": "http://127.0.0.1:8000/v1"}, "s")
    assert "an endpoint spec is URL#MODEL" in problem


@pytest.mark.parametrize(("cell", "message"), [
    ('m: str = "x"  # registry: modle', "`registry: modle` is not one of"),
    ("m: int = 3  # registry: model", "must be a str or a list of str"),
])
def test_parse_rejects_a_malformed_registry_comment(cell, message):
    with pytest.raises(ParameterError, match=message):
        parse_parameters(cell, "nb.md")


KINDS_CELL = '''n_resamples: int = 1000  # range: [100, 100000]; analysis; bootstrap resamples
temperature: float = 0.8  # generating
# the cut-off applied to answers already computed
# analysis
cut: float = 0.5
writer: str = "smollm2-135m"  # registry: model
note: str = "x"  # the analysis of it; not a kind: no clause is exactly a kind word
'''


def test_parse_reads_each_parameters_kind_from_a_clause_of_its_comment():
    params = parse_parameters(KINDS_CELL, "nb.md")
    assert [n for n, p in params.items() if p.analysis] == ["n_resamples", "cut"]
    assert (params["temperature"].effect, params["writer"].effect, params["note"].effect) == ("generating", None, None)
    assert (params["n_resamples"].low, params["n_resamples"].high) == (100, 100000)  # the other clauses still read
    assert params["cut"].describe().endswith("analysis only (changes no model call)")


def test_unstated_kinds_names_every_parameter_but_a_model_role_that_states_none():
    (problem,) = unstated_kinds(parse_parameters(KINDS_CELL, "nb.md"), "notebooks/x.md")
    assert problem.startswith("notebooks/x.md, parameter 'note': its comment states no kind; add `; analysis`")
    assert unstated_kinds(parse_parameters("n: int = 3  # generating\n", "nb.md"), "nb.md") == []


@pytest.mark.parametrize(("cell", "message"), [
    ('m: str = "x"  # registry: model; analysis', "a model role .* remove `analysis`"),
    ("n: int = 3  # analysis; generating", "states both `analysis` and `generating`"),
])
def test_parse_rejects_a_kind_that_cannot_be_true(cell, message):
    with pytest.raises(ParameterError, match=message):
        parse_parameters(cell, "nb.md")


def test_a_parameter_the_runs_other_settings_make_inert_is_refused_before_the_run_naming_the_fix(tmp_path,
                                                                                                 monkeypatch):
    """`# read when: judge == "embedding"`: a -p of it under another judge would change nothing (the published
    profile clusters with the LLM judge, so its embedding threshold is never read); it is refused, naming the
    setting that would make it count. Under the embedding judge it is accepted."""
    from llmcreativity.pipeline.parameters import inert_override, parse_parameters
    from llmcreativity.pipeline.planning import plan

    params = parse_parameters('judge: str = "embedding"  # generating\n# read when: judge in ["embedding"]\n'
                              'threshold: float = 0.6  # analysis\n', "nb")
    assert params["threshold"].read_when == ("judge", ("embedding",))
    assert inert_override(params, {"judge": "embedding", "threshold": 0.8}, "threshold", "nb") is None
    why = inert_override(params, {"judge": "llm", "threshold": 0.8}, "threshold", "nb")
    assert why and "only when 'judge' is 'embedding' (this run: 'llm')" in why and "-p judge embedding" in why
    with pytest.raises(ParameterError, match="bad"):
        parse_parameters('x: int = 1  # generating; read when: judge == bad value\n', "nb")
    from dataclasses import replace

    from llmcreativity.pipeline.stages import STAGES

    monkeypatch.setenv("LLMCREATIVITY_RESULTS", str(tmp_path / "results"))
    alone = [replace(next(s for s in STAGES if s.name == "semantic_entropy"), depends=())]
    with pytest.raises(ParameterError, match="reads 'embedding_threshold' only when 'judge' is 'embedding'"):
        plan("published", [("embedding_threshold", "0.8")], stages=alone)
    [planned] = plan("smoke", [("embedding_threshold", "0.8")], stages=alone)
    assert planned.parameters["embedding_threshold"] == 0.8


def test_a_generating_parameter_added_after_recording_keeps_older_records_replayable_at_its_default_only():
    """The writers' `decoding` (`# generating; added after recording`) did not exist when the published run was
    recorded: its record lacks it and reads as made at the default ("none"), so the published record still replays;
    any other value is a generating difference, and without the clause the missing parameter is one too."""
    from dataclasses import replace

    from llmcreativity.paths import PUBLISHED_RECORD, REPO_ROOT
    from llmcreativity.pipeline.parameters import parse_parameters
    from llmcreativity.pipeline.planning import plan
    from llmcreativity.pipeline.record_compare import parameter_differences
    from llmcreativity.record_file import read_record

    recorded = read_record(REPO_ROOT / PUBLISHED_RECORD).stages["baselines"].resolved_parameters
    assert "decoding" not in recorded
    p = next(x for x in plan("published", []) if x.stage.name == "baselines")
    assert p.declared["decoding"].added and p.parameters.get("decoding", "none") == "none"
    assert parameter_differences(recorded, p)[0] == {}
    chosen = next(x for x in plan("published", [("baselines.decoding", "no-repeat-4gram")])
                  if x.stage.name == "baselines")
    assert parameter_differences(recorded, chosen)[0] == {"decoding": ("(none)", "no-repeat-4gram")}
    plain = replace(p, declared={**p.declared, "decoding": replace(p.declared["decoding"], added=False)})
    assert parameter_differences(recorded, plain)[0] == {"decoding": ("(none)", "none")}
    parsed = parse_parameters('d: str = "none"  # generating; added after recording\nk: int = 1  # generating\n', "nb")
    assert parsed["d"].added and not parsed["k"].added
