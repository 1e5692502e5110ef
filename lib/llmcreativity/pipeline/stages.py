"""The stage notebooks, in dependency order: everything about a stage in its one `Stage` entry.

A stage's entry names its notebook `notebooks/<notebook>.md` (MyST, paired by jupytext; papermill executes it into
`results_dir(profile)/executed/<name>.ipynb`), the stages whose outputs it reads, its parameter profiles, the files
it writes (`output_files`, from which `outputs` builds the path functions and the run report counts its items), how
its work grows with its parameters (`Scale`, for `projection`) and the claims it records (`claim_table.CLAIMS` ids,
for the ledger). Adding a stage means writing its notebook and one entry here.

Profiles are data: each is a file `profiles/<name>.yaml` holding only the values it sets, per stage, on top of the
notebooks' defaults (`profile_files` reads them, `Stage.profiles` holds them). `default` runs on the embedded
models within this machine's time budget; `paper` uses the papers' sizes; `smoke` tests the code path in seconds
per stage, under `results/smoke/`; `pilot`, `published`, `decisive-pilot` and `decisive` are the recorded runs and
their pilots. What each was for and how it ran is the book's appendix, `book/history.md`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import output_files as out
from ..output_files import OutputFile
from ..writing.decoding import CHOSEN_DECODING
from .profile_files import merged, part, run_settings, stage_profiles

SMOKE_MODEL = "smollm2-135m"
"""The smallest registry language model: every model role of the smoke profile uses it (`profiles/smoke.yaml`)."""

RUN_SETTINGS: dict[str, dict[str, str]] = run_settings()
"""Profile -> its run-wide settings of the local models (`dtype`, `device`: the `run` of its file), which every stage
kernel gets as the defaults of `get_backend` and `get_embedder`; `-p dtype` / `-p device` override them (on a GPU:
`-p device cuda -p dtype auto`, under other identities). A setting not listed is "auto"."""

SCIFI_CATEGORIES = 10
"""SciFi-100's categories (a `None` category count means all of them)."""
SCIFI_PER_CATEGORY = 10
"""Prompts per SciFi-100 category (a `None` per-category count means all of them)."""

PUBLISHED_CHOICES: dict[str, dict[str, Any]] = part("published", "choices")
"""Stage -> the published run's generating choices that are not sizes (models, story lengths, rounds, judges): the
`choices` of `profiles/published.yaml`, which the pilot and the claims' re-decision build on."""
PUBLISHED_SIZES: dict[str, dict[str, Any]] = part("published", "sizes")
"""Stage -> the published run's sizes, from its registration (`published/preregistration`): the `sizes` of
`profiles/published.yaml`. `tests/pipeline/test_published_profile.py` checks them against the registration."""
PILOT_SIZES: dict[str, dict[str, Any]] = part("pilot", "sizes")
"""Stage -> the pilot's sizes, a few items per stage: the `sizes` of `profiles/pilot.yaml`."""

DECISIVE_CHANGES: dict[str, dict[str, Any]] = part("decisive", "changes")
"""Stage -> the claims' re-decision's generating choices that differ from `PUBLISHED_CHOICES`: the `changes` of
`profiles/decisive.yaml`, each a deviation the second registration lists with its reason (`DECISIVE_DEVIATIONS`)."""

DECISIVE_CLAIMS = ("A1", "A2", "A3", "A4", "B1", "B2", "B3", "B4", "B6", "B7", "B8", "B11")
"""The claims the re-decision decides again (on new stories, new chains or a confirmed judge); the others (A5, B5,
B9, B10) rest on the published run's calls, asked again, and keep the first registration's terms."""

DECISIVE_DEVIATIONS: dict[str, str] = {
    "decoding": "the writers (baselines and Review: drafts, feedback, revisions) draw with the writing pilot's chosen "
                f"decoding {CHOSEN_DECODING!r} instead of 'none': about half the first run's stories were repetition "
                "loops; the pilot confirmed it in all five frameworks on new prompts",
    "judge": "semantic entropy clusters each step's samples with the judge laboratory's confirmed equivalence judge "
             "(cosine average linkage, all-MiniLM-L6-v2, committed in 6aaa70c, confirmed on 2 unseen MuseScorer "
             "objects) instead of the LLM entailment judge, which failed on 30 labelled ideas; B1-B4 and B8 are gated "
             "on it",
    "n_samples": "10 samples a step (the paper's number) instead of 6: the confirmed judge asks no model, so the "
                 "samples' generation is the only cost",
    "sizes": "semantic entropy's problems per domain and step cap are sized by this registration (the first kept the "
             "pilot's, its claims' judge having failed)",
    "b7_judge": "B7 clusters its idea sets with the confirmed equivalence judge, on the two MuseScorer objects it was "
                "neither fitted nor chosen on (button, key; `entropy.diversity_agreement.unseen_rounds`), 100 sets "
                "of 5 ideas from each; the baselines (cosine, Distinct-1/2, Self-BLEU) have no free parameter, so "
                "there is nothing of theirs to tune on the development objects",
    "min_n": "each verdict function reads the minimum sample of its run's own registration (`claim_table.min_n`: "
             "this registration's under the decisive profile, the claim table's, which is the first registration's, "
             "elsewhere), so the source of `a4_verdict`, `accuracy_claim` and the other rule functions that read a "
             "minimum changed; their rules did not",
    "story_filter": "paper A's claims are reported on the stories that pass the degeneracy measure "
                    "(`writing.degeneracy`; A4 on the framework runs whose every version passes), with the failing "
                    "share beside them: a loop is no story, and three writers repeating one loop would look like "
                    "convergence",
}
"""The second registration's deviations from the first, each with its reason (`preregistration` lists them)."""

DECISIVE_SEEN: tuple[str, ...] = (
    "SciFi-100 prompts: the re-decision writes for the published run's 14 prompts (the first 2 of 7 categories), "
    "whose stories the first run wrote with decoding 'none' and scored; its own pilot's 2 prompts are the first 2 of "
    "those. Under the new decoding every story is written anew: no recorded story enters the decisive sample",
    "semantic-entropy problems: the first MacGyver and the first hypogen-astro problem were run by the first pilot and "
    "the published run (6 samples a step, 2 steps, the LLM judge); the sizing pilot's 3 problems per domain are the "
    "first 3 of the decisive sample. Their greedy chains are the same calls at any sample count, so the first run's "
    "continuations of those problems are reused; their samples and clusters are new",
    "the judge laboratory's equivalence judge was chosen on 3 MuseScorer objects and confirmed on 2 others; semantic "
    "entropy's problems are not among its labelled items",
)
"""What the re-decision's sample holds that was seen before its sizing, declared in the second registration."""

DECISIVE_PILOT_SIZES: dict[str, dict[str, Any]] = merged(PILOT_SIZES, part("decisive-pilot", "sizes"))
"""Stage -> the sizing pilot of the claims' re-decision: the pilot's sizes under the `sizes` of
`profiles/decisive-pilot.yaml` (semantic entropy's design effect's inputs, B7's sets)."""

DECISIVE_SIZES: dict[str, dict[str, Any]] = merged(PUBLISHED_SIZES, part("decisive", "sizes"))
"""Stage -> the claims' re-decision's sizes, from its registration (`published/preregistration-2`): the published
run's under the `sizes` of `profiles/decisive.yaml`. `tests/pipeline/test_published_profile.py` checks them against
the registration."""


def _all(value: int | None, total: int) -> int:
    return total if value is None else value


def _prompts(p: dict[str, Any], stage: str = "") -> int:
    """SciFi-100 prompts a writing stage writes for: n_categories x per_category (None: all); `stage` "review" reads
    the review stage's as a later stage sees them (`review.n_categories`, `projection.scale_parameters`)."""
    at = f"{stage}." if stage else ""
    return _all(p[f"{at}n_categories"], SCIFI_CATEGORIES) * _all(p[f"{at}per_category"], SCIFI_PER_CATEGORY)


def _pilot_stories(p: dict[str, Any]) -> int:
    """Stories the writing pilot writes: a Single Agent story per decoding setting and screen prompt; per
    confirmation prompt 1 of Single Agent and 3 of each other framework; the larger Single Agent's."""
    screen = _all(p["screen_categories"], SCIFI_CATEGORIES) * p["screen_per_category"]
    confirm = _all(p["confirm_categories"], SCIFI_CATEGORIES) * p["confirm_per_category"]
    per_prompt = sum(1 if f == "single" else 3 for f in p["frameworks"])
    return int(len(p["decodings"]) * screen + per_prompt * confirm + min(p["large_prompts"], confirm))


def _questions(n: int) -> int:
    """Most yes/no questions bidirectional entailment clustering of n texts asks: each text against every earlier
    representative, both directions, n (n - 1) (`entropy.clustering`)."""
    return n * (n - 1)


def _se_chains(p: dict[str, Any], stage: str = "") -> float:
    """Chains the semantic-entropy stage samples: se_models x temperatures x (n_problems + n_hypogen + n_scifi);
    `stage` "semantic_entropy" reads them as a later stage sees them (`semantic_entropy.se_models`, ...)."""
    at = f"{stage}." if stage else ""
    problems: int = p[f"{at}n_problems"] + p[f"{at}n_hypogen"] + p[f"{at}n_scifi"]
    return len(p[f"{at}se_models"]) * len(p[f"{at}temperatures"]) * problems


def _se_calls(p: dict[str, Any]) -> float:
    """The semantic-entropy stage's model calls: per chain and step n_samples candidates and the greedy
    continuation, plus with judge "llm" up to n_samples (n_samples - 1) entailment questions; with the embedding
    judge, the llm_check_steps steps re-clustered by the LLM judge; one novelty rating per chain when a novelty
    judge is set."""
    chains, questions = _se_chains(p), _questions(p["n_samples"])
    per_step: int = p["n_samples"] + 1 + (questions if p["judge"] == "llm" else 0)
    check: int = p["llm_check_steps"] * questions if p["judge"] == "embedding" else 0
    steps: int = p["step_cap"]
    return chains * steps * per_step + check + (chains if p["novelty_judge"] else 0)


def _entailment_calls(p: dict[str, Any]) -> float:
    """The entailment-validation stage's judge questions, at most: each LLM judge clusters llm_sample ideas
    llm_repeats times at each p(Yes) threshold (n (n - 1) questions each; thresholds share the questions both ask),
    and the B7 judge clusters b7_sets sets of b7_set_size ideas. Embeddings are cheap beside them and not counted."""
    judges: int = len(p["entailment_judges"]) * p["llm_repeats"] * len(p["llm_thresholds"])
    sets: int = p["b7_sets"]
    return judges * _questions(p["llm_sample"]) + sets * _questions(p["b7_set_size"])


def _judge_calls(p: dict[str, Any]) -> float:
    """The judge-validation stage's judge calls, about (unreadable replies add forced choices): per labelled item a
    single call, a CoT call, a p(yes) pass, a ChatEval discussion (3 agents x rounds) and two retrieval discussions
    (3 x rounds + 1: with and without early stopping); the partitioned ablation on its n_ablation items; a retrieval
    discussion per item for each other (k, T) of the sweep and for the weaker judge when set; the se_judge's calls
    on every chain of the semantic-entropy stage; all times the criteria when each is decided apart."""
    from ..judges.criteria import criteria_set
    from ..judges.retrieval_panel import AGENTS

    items: int = p["n_items"]
    talk: int = len(AGENTS) * p["rounds"]
    per_arm = {"single": 1, "cot": 1, "p_yes": 1, "chateval": talk, "retrieval": talk + 1}
    ablation = items if p["n_ablation"] == 0 else min(p["n_ablation"], items)
    sweep = {(k, t) for k in p["k_sweep"] for t in p["t_sweep"]} - {(p["k"], p["stop_confidence"]), (p["k"], 1.01)}
    arms = sum(per_arm.values()) + per_arm["retrieval"]  # every kind once, and retrieval without early stopping
    discussions = ablation + len(sweep) * items + (items if p["weak_convergent_judge"] else 0)
    calls: float = items * arms + discussions * per_arm["retrieval"]
    calls += _se_chains(p, "semantic_entropy") * per_arm[p["se_judge"]]
    return calls * (len(criteria_set(p["criteria"])) if p["criteria_mode"] == "per_criterion" else 1)


def _gradings(p: dict[str, Any]) -> float:
    """Rubric gradings (one story on one dimension): the stories judged on the first judge_prompts prompts the review
    stage wrote for (on each, Single Agent's one story, up to stories_per_run of the three of Teacher, Debate,
    Discussion and Review, and the bigger Single Agent's on the first large_prompts of them), and hanna_n HANNA
    stories, each on every rubric dimension."""
    from ..judges.rubric import DIMENSIONS

    written = _prompts(p, "review")
    judged = min(written, _all(p["judge_prompts"], written))
    per_run = min(_all(p["stories_per_run"], 3), 3)
    large = min(judged, _all(p["baselines.large_prompts"], judged))
    hanna: int = p["hanna_n"]
    return (judged * (1 + 4 * per_run) + large + hanna) * len(DIMENSIONS)


def _lab_texts(p: dict[str, Any]) -> float:
    """Texts the judge laboratory embeds, about: MacGyver's solutions and problems (5,093 in all, or about 16 per
    problem of max_problems), MuseScorer's ideas (5,703, or max_ideas per object of 5), HANNA's stories' 150-word
    chunks (about 4 per story), each once per embedder."""
    problems: int = p["max_problems"] or 323
    ideas: int = min(p["max_ideas"] or 1141, 1141) * 5
    texts: float = (problems * 5093 / 323 + ideas + p["hanna_n"] * 4) * len(p["embedders"])
    return texts


CORPUS_BOOKS = 48
"""Books of the shipped science-fiction corpus (`max_books` 0 reads them all)."""


def _framework_calls(framework: str, rounds: int = 1) -> int:
    """Writer calls one run of a writing framework makes for one prompt (`writing.frameworks`): Single Agent 1;
    Teacher and Debate 3 drafts, then per round 3 critiques or challenges and 3 revisions; Discussion 3 drafts and 3
    revisions a round; Review 3 drafts, 6 peer reviews, 3 revisions."""
    return {"single": 1, "teacher": 3 + 6 * rounds, "debate": 3 + 6 * rounds, "discussion": 3 + 3 * rounds,
            "review": 12}[framework]


SHARED_DRAFTS = 3
"""Draft calls two frameworks of one prompt ask alike (same persona, prompt and sampling: one cached answer); the
records count distinct calls, so these count once."""


def _baselines_calls(p: dict[str, Any]) -> dict[str, float]:
    """Per prompt: Single Agent, Teacher, Debate and Discussion (their calls, less `SHARED_DRAFTS`), 13 texts
    embedded (the final stories and versions the homogenization compares); the bigger Single Agent on the first
    large_prompts prompts."""
    prompts, rounds = _prompts(p), p["rounds"]
    writer = sum(_framework_calls(f, rounds) for f in ("single", "teacher", "debate", "discussion")) - SHARED_DRAFTS
    return {"writer": prompts * writer, "large_writer": min(prompts, _all(p["large_prompts"], prompts)),
            "embedder": 13 * prompts}


def _review_calls(p: dict[str, Any]) -> dict[str, float]:
    """Per prompt: LLM Review's 12 writer calls and 6 texts embedded."""
    prompts = _prompts(p)
    return {"writer": _framework_calls("review") * prompts, "embedder": 6 * prompts}


def _pilot_calls(p: dict[str, Any]) -> dict[str, float]:
    """A Single Agent call per decoding setting and screen prompt; per confirmation prompt each framework's calls;
    the bigger Single Agent on large_prompts of them."""
    screen = _all(p["screen_categories"], SCIFI_CATEGORIES) * p["screen_per_category"]
    confirm = _all(p["confirm_categories"], SCIFI_CATEGORIES) * p["confirm_per_category"]
    return {"writer": len(p["decodings"]) * screen + confirm * sum(_framework_calls(f) for f in p["frameworks"]),
            "large_writer": min(p["large_prompts"], confirm)}


def _se_texts(p: dict[str, Any], stage: str = "") -> float:
    """Sampled step texts of the semantic-entropy stage: chains x step_cap x n_samples (a chain that writes STOP
    earlier has fewer: the calibration record's share carries over)."""
    at = f"{stage}." if stage else ""
    samples: int = p[f"{at}step_cap"] * p[f"{at}n_samples"]
    return _se_chains(p, stage) * samples


def _se_solutions(p: dict[str, Any], stage: str = "") -> float:
    """Distinct chain solutions: with chain_end "greedy" a model's chains of one problem at every temperature end in
    the same greedy continuation, so se_models x problems; else one per chain."""
    at = f"{stage}." if stage else ""
    chains = _se_chains(p, stage)
    return chains / len(p[f"{at}temperatures"]) if p.get(f"{at}chain_end", "greedy") == "greedy" else chains


def _se_role_calls(p: dict[str, Any]) -> dict[str, float]:
    """se_models: n_samples per chain, step and temperature, and the greedy continuation per model, problem and step
    (it does not depend on the temperature); entailment_judge: up to n_samples (n_samples - 1) questions per step
    with judge "llm", the llm_check_steps steps with the embedding judge; embedder: every sampled text (cosine
    clusters, and the writing stages' stories, 8 a prompt); similarity_embedder: every sampled text; novelty_judge:
    one rating per distinct solution."""
    problems = p["n_problems"] + p["n_hypogen"] + p["n_scifi"]
    steps, models = p["step_cap"], len(p["se_models"])
    texts, questions = _se_texts(p), _questions(p["n_samples"])
    judge = {"llm": _se_chains(p) * steps * questions, "embedding": p["llm_check_steps"] * questions}
    stories = 8 * _prompts(p, "baselines")
    return {"se_models": texts + models * problems * steps,
            "entailment_judge": judge.get(p["judge"], 0),
            "embedder": texts + stories, "similarity_embedder": texts,
            "novelty_judge": _se_solutions(p) if p["novelty_judge"] else 0}


def _se_requests(p: dict[str, Any]) -> dict[str, float]:
    """`_se_role_calls` with se_models' calls as prompts: one per chain and step, and the greedy one per model,
    problem and step."""
    problems = p["n_problems"] + p["n_hypogen"] + p["n_scifi"]
    return _se_role_calls(p) | {"se_models": (_se_chains(p) + len(p["se_models"]) * problems) * p["step_cap"]}


def _entailment_role_calls(p: dict[str, Any]) -> dict[str, float]:
    """entailment_judges: each judge's llm_sample (llm_sample - 1) questions per repeat (the p(Yes) thresholds share
    them), and with b7_judge "llm" b7_set_size (b7_set_size - 1) per B7 set; embedder: embedding_sample ideas per
    round and every B7 idea."""
    judges = len(p["entailment_judges"]) * p["llm_repeats"] * _questions(p["llm_sample"])
    b7 = p["b7_sets"] * _questions(p["b7_set_size"]) if p.get("b7_judge", "llm") == "llm" else 0
    return {"entailment_judges": judges + b7,
            "embedder": p["embedding_sample"] * len(p["rounds"]) + p["b7_sets"] * p["b7_set_size"]}


def _judge_role_calls(p: dict[str, Any]) -> dict[str, float]:
    """convergent_judge: the judge-validation calls of `_judge_calls` with the semantic-entropy stage's distinct
    solutions judged (not its chains); weak_convergent_judge: a retrieval discussion per item, when set; embedder:
    the labelled items and their solutions, about 12 per item (early stops make the discussions shorter: the
    calibration record's share carries over)."""
    from ..judges.criteria import criteria_set
    from ..judges.retrieval_panel import AGENTS

    items, talk = p["n_items"], len(AGENTS) * p["rounds"] + 1
    weak = items * talk if p["weak_convergent_judge"] else 0
    chains, solutions = _se_chains(p, "semantic_entropy"), _se_solutions(p, "semantic_entropy")
    se_per = {"single": 1, "cot": 1, "p_yes": 1, "chateval": talk - 1, "retrieval": talk}[p["se_judge"]]
    per = len(criteria_set(p["criteria"])) if p["criteria_mode"] == "per_criterion" else 1
    convergent = _judge_calls(p) - weak * per - chains * se_per * per + solutions * se_per * per
    return {"convergent_judge": convergent, "weak_convergent_judge": weak * per, "embedder": 12 * items}


def _evaluation_calls(p: dict[str, Any]) -> dict[str, float]:
    """rubric_judge: per grading an expected-score pass and `repeats` samples; surprisal_scorer and the embedder:
    every story of the writing stages (10 a prompt of baselines, the bigger Single Agent's, 3 a prompt of review)."""
    stories = 10 * _prompts(p, "baselines") + 3 * _prompts(p, "review") + _all(p["baselines.large_prompts"], 1)
    return {"rubric_judge": _gradings(p) * (p["repeats"] + 1), "surprisal_scorer": stories, "(none)": stories}


def _evaluation_requests(p: dict[str, Any]) -> dict[str, float]:
    """`_evaluation_calls` with the rubric judge's as prompts: an expected-score pass and one sampled request (of
    `repeats` samples) per grading."""
    return _evaluation_calls(p) | {"rubric_judge": 2 * _gradings(p)}


@dataclass(frozen=True)
class Scale:
    """How one stage's work grows with its parameters (see `projection`)."""

    units: Callable[[dict[str, Any]], float]
    """Independent pieces of work, from the stage's resolved parameters (and, as `STAGE.NAME`, those of the stages
    it reads from: `projection.scale_parameters`). Where the stage's cost is its model calls of a few expensive
    kinds, they are counted alike (an order of magnitude, not a quote)."""
    units_formula: str
    """`units` as the parameters it multiplies, for the table."""
    length: Callable[[dict[str, Any]], float] = lambda p: 1.0
    """Relative cost of one piece of work."""
    length_formula: str = ""
    """`length` as the parameters it multiplies ("" when constant)."""
    calls: Callable[[dict[str, Any]], dict[str, float]] | None = None
    """Distinct model calls per role, as a record counts them (`record.json`'s per-stage `calls`: a `generate` of
    n samples is n calls, an embedder call one text), from the same parameters as `units`. A projection scales the
    calibration record's calls of each role by calls(target) / calls(recorded), so what the formula leaves out
    (early stops, duplicate texts) carries over in proportion (`projection.project_calls`)."""
    calls_formula: str = ""
    """`calls` in words, for the table."""
    requests: Callable[[dict[str, Any]], dict[str, float]] | None = None
    """Prompts asked per role, where a role's calls draw several samples a prompt (a `generate` of n samples is n
    calls, one request); None: one call, one request. A projection scales seconds and prompt tokens by them."""
    per_call: Callable[[dict[str, Any]], float] = lambda p: 1.0
    """Relative cost (seconds, tokens) of one call."""
    per_call_formula: str = ""
    """`per_call` as the parameters it multiplies ("" when constant)."""


@dataclass(frozen=True)
class Stage:
    """One notebook of the pipeline and everything the runner, the run report and the ledger know about it."""

    name: str
    """Short id, also the executed notebook's file name and the stage's results folder."""
    notebook: str
    """Source notebook path relative to the repo root."""
    title: str
    """Chapter title in the book."""
    depends: tuple[str, ...] = ()
    """Stages whose output files this one reads."""
    profiles: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Profile name -> parameter overrides (on top of the notebook's own defaults); the stage table's are read from
    the profile files (`profile_files.stage_profiles`)."""
    outputs: tuple[OutputFile, ...] = ()
    """The files it writes into its folder; those with `items` hold the records the run report counts."""
    scale: Scale | None = None
    """How its work grows with its parameters; None: not projected."""
    claims: tuple[str, ...] = ()
    """The claim ids (`claim_table.CLAIMS`) its notebook records, some only under some parameters."""
    caches: tuple[str, ...] = ()
    """Folders beside its own, under the profile's results folder, that it builds and resumes from (the corpus
    store); a run against a record clears them with its own folder, so that it asks every recorded call again."""

    @property
    def folders(self) -> tuple[str, ...]:
        """Its own folder (its name) and its `caches`: every file it writes, under the profile's results folder."""
        return (self.name, *self.caches)

    def __post_init__(self) -> None:
        units = {o.items for o in self.outputs if o.items}
        if len(units) > 1:
            raise ValueError(f"stage {self.name!r}: its outputs count different items {sorted(units)}; "
                             "give the item outputs of one stage one unit")

    @property
    def items_unit(self) -> str:
        """What one of its items is ("stories"); empty for a stage whose outputs count none."""
        return next((o.items for o in self.outputs if o.items), "")


STAGES: list[Stage] = [
    Stage(
        name="backends",
        notebook="notebooks/backends.md",
        title="Model backends and log-probabilities",
        scale=Scale(lambda p: p["n_samples"] * len(p["temperatures"]), "n_samples x temperatures",
                    calls=lambda p: {"writer": p["n_samples"] * len(p["temperatures"]) + 3},
                    requests=lambda p: {"writer": len(p["temperatures"]) + 3},
                    calls_formula="writer: n_samples x temperatures + 2 answer_probs + 1 score"),
        profiles=stage_profiles("backends"),
    ),
    Stage(
        name="scifi100",
        notebook="notebooks/scifi100_construction.md",
        title="SciFi-100: the prompts and how to build them",
        depends=("backends",),
        outputs=(out.SCIFI100_BUILT,),
        scale=Scale(lambda p: p["n_dimensions"] * p["n_candidates"], "n_dimensions x n_candidates",
                    calls=lambda p: {"writer": p["n_dimensions"] * p["n_candidates"],
                                     "embedder": p["n_dimensions"] * p["n_candidates"] + 10},
                    requests=lambda p: {"writer": p["n_dimensions"],
                                        "embedder": p["n_dimensions"] * p["n_candidates"] + 10},
                    calls_formula="writer: n_dimensions x n_candidates; embedder: the candidates and about 10 more"),
        profiles=stage_profiles("scifi100"),
    ),
    Stage(
        name="baselines",
        notebook="notebooks/baselines.md",
        title="Baselines: Single Agent, Teacher, Debate, Discussion",
        depends=("backends",),
        outputs=(out.STORIES, out.TRANSCRIPTS, out.HOMOGENIZATION, out.LARGE_SINGLE, out.LARGE_SINGLE_STORIES),
        scale=Scale(_prompts, "prompts (n_categories x per_category)",
                    lambda p: (1 + p["rounds"]) * p["max_story_words"], "(1 + rounds) x max_story_words",
                    calls=_baselines_calls, calls_formula="writer: prompts x (7 + 15 rounds); large_writer: "
                    "large_prompts; embedder: 13 x prompts",
                    per_call=lambda p: p["max_story_words"], per_call_formula="max_story_words"),
        profiles=stage_profiles("baselines"),
    ),
    Stage(
        name="review",
        notebook="notebooks/review.md",
        title="LLM Review: blind peer review",
        depends=("backends", "baselines"),
        outputs=(out.STORIES, out.TRANSCRIPTS, out.HOMOGENIZATION),
        scale=Scale(_prompts, "prompts (n_categories x per_category)", lambda p: p["max_story_words"],
                    "max_story_words", calls=_review_calls, calls_formula="writer: 12 x prompts; embedder: 6 x prompts",
                    per_call=lambda p: p["max_story_words"], per_call_formula="max_story_words"),
        claims=("A4",),
        profiles=stage_profiles("review"),
    ),
    Stage(
        name="writing_pilot",
        notebook="notebooks/writing_pilot.md",
        title="Stories that are stories: decoding against loops, chosen on a pilot",
        depends=("backends",),
        outputs=(out.PILOT_SCREEN, out.PILOT_SCREEN_STORIES, out.PILOT_CONFIRM, out.PILOT_CONFIRM_STORIES,
                 out.PILOT_LARGE, out.PILOT_LARGE_STORIES, out.PILOT_SCREEN_TABLE, out.PILOT_CONFIRM_TABLE,
                 out.PILOT_CHOICE),
        scale=Scale(_pilot_stories, "stories (decodings x screen prompts + framework stories x confirmation prompts "
                    "+ large_prompts)",
                    lambda p: p["max_story_words"], "max_story_words",
                    calls=_pilot_calls, calls_formula="writer: decodings x screen prompts + framework calls x "
                    "confirmation prompts; large_writer: large_prompts",
                    per_call=lambda p: p["max_story_words"], per_call_formula="max_story_words"),
        profiles=stage_profiles("writing_pilot"),
    ),
    Stage(
        name="corpus",
        notebook="notebooks/corpus.md",
        title="The reference corpus and the rule-based novelty metrics",
        depends=("backends",),
        outputs=(out.CORPUS_CHUNKS, out.CORPUS_EMBEDDINGS, out.CORPUS_META, out.UNIGRAMS, out.HANNA_METRICS,
                 out.HANNA_SURPRISAL),
        caches=(out.CORPUS_STORE_FOLDER,),
        scale=Scale(lambda p: p["n_surprisal"], "n_surprisal",
                    calls=lambda p: {"surprisal_scorer": 2 * p["n_surprisal"],
                                     "embedder": 340 * (p["max_books"] or CORPUS_BOOKS) + p["n_stories"]},
                    calls_formula="surprisal_scorer: 2 x n_surprisal; embedder: about 340 chunks a book + n_stories"),
        profiles=stage_profiles("corpus"),
    ),
    Stage(
        name="judge_lab",
        notebook="notebooks/judge_lab.md",
        title="The judge laboratory: judges chosen on one split, confirmed on another",
        outputs=(out.LAB_SPLIT, out.LAB_DEVELOPMENT, out.LAB_CONFIRMATION, out.LAB_CHOICE, out.LAB_HEADS),
        scale=Scale(_lab_texts, "texts embedded (solutions + problems, ideas, story chunks) x embedders",
                    calls=lambda p: {"checklist_judges": 6 * p["lm_items"] * len(p["checklist_judges"]),
                                     "embedders": _lab_texts(p)},
                    calls_formula="checklist_judges: 6 questions x lm_items x judges; embedders: the texts"),
        profiles=stage_profiles("judge_lab"),
    ),
    Stage(
        name="entailment_validation",
        notebook="notebooks/entailment_validation.md",
        title="Semantic clusters against human 'same idea' judgements",
        depends=("backends",),
        outputs=(out.EMBEDDING_SWEEP, out.LLM_JUDGES, out.B7_SETS),
        scale=Scale(_entailment_calls, "entailment questions (judges x repeats x thresholds x llm_sample^2, B7 sets)",
                    calls=_entailment_role_calls, calls_formula="entailment_judges: judges x repeats x llm_sample^2 "
                    "(+ B7 sets x set_size^2 with b7_judge llm); embedder: embedding_sample x rounds + B7 ideas"),
        claims=("B7",),
        profiles=stage_profiles("entailment_validation"),
    ),
    Stage(
        name="semantic_entropy",
        notebook="notebooks/semantic_entropy.md",
        title="Semantic entropy by temperature and scale",
        depends=("backends", "baselines", "review"),
        outputs=(out.CHAIN_RECORDS, out.STEPS, out.CHAIN_TABLE, out.DRAFTS, out.NOVELTY, out.SE_WEIGHTS,
                 out.SE_EXPLORATORY, out.COHERENCE, out.SE_COHERENT),
        scale=Scale(_se_calls, "model calls (chains x step_cap x n_samples, n_samples^2 for judge llm)",
                    lambda p: p["max_tokens"], "max_tokens", calls=_se_role_calls, requests=_se_requests,
                    calls_formula="se_models: chains x step_cap x n_samples + greedy steps; embedders: the sampled "
                    "texts; entailment_judge: n_samples^2 a step (judge llm); novelty_judge: a rating a solution",
                    per_call=lambda p: p["max_tokens"], per_call_formula="max_tokens"),
        claims=("B1", "B2", "B3", "B4", "B8"),
        profiles=stage_profiles("semantic_entropy"),
    ),
    Stage(
        name="judge_validation",
        notebook="notebooks/judge_validation.md",
        title="Convergent creativity: validating the judges",
        depends=("backends", "semantic_entropy"),
        outputs=(out.JUDGE_RUNS,),
        scale=Scale(_judge_calls, "judge calls (n_items x arms, discussions, SE chains judged)",
                    lambda p: p["max_tokens"], "max_tokens", calls=_judge_role_calls,
                    calls_formula="convergent_judge: n_items x arms, discussions, SE solutions; "
                    "weak_convergent_judge: a discussion an item; embedder: 12 x n_items",
                    per_call=lambda p: p["max_tokens"], per_call_formula="max_tokens"),
        claims=("B5", "B6", "B9", "B10", "B11"),
        profiles=stage_profiles("judge_validation"),
    ),
    Stage(
        name="evaluation",
        notebook="notebooks/evaluation.md",
        title="Evaluating the stories: rubric judge, novelty metrics and the paper's claims",
        depends=("corpus", "baselines", "review"),
        outputs=(out.RUBRIC_SCORES, out.RUBRIC_HANNA, out.RESULTS_TABLE, out.STORY_SCORES),
        scale=Scale(_gradings, "rubric gradings ((judged stories + hanna_n) x dimensions)",
                    lambda p: p["repeats"] + 1, "repeats + 1", calls=_evaluation_calls, requests=_evaluation_requests,
                    calls_formula="rubric_judge: gradings x (repeats + 1); surprisal_scorer, embedder: the stories"),
        claims=("A1", "A2", "A3", "A5"),
        profiles=stage_profiles("evaluation"),
    ),
]
"""Every stage, each before the stages that read its outputs."""


def writer_of(output: OutputFile, stage: str | None = None, stages: list[Stage] | None = None) -> Stage:
    """The stage that writes `output`: the stage called `stage` when given (it must list the output), else the one
    stage listing it. Raises ValueError naming the stages that list it (none, or several without `stage`)."""
    writers = [s for s in (STAGES if stages is None else stages) if output in s.outputs]
    names = [s.name for s in writers]
    if stage is not None:
        if stage not in names:
            raise ValueError(f"stage={stage!r} writes no {output.path} ({output.holds}): choose one of {names}")
        return writers[names.index(stage)]
    if len(writers) != 1:
        raise ValueError(f"{output.path} ({output.holds}) is written by {names or 'no stage'}: name the stage")
    return writers[0]


def recorder_of(claim_id: str, stages: list[Stage] | None = None) -> Stage | None:
    """The stage whose notebook records claim `claim_id`, or None when no stage lists it."""
    return next((s for s in (STAGES if stages is None else stages) if claim_id in s.claims), None)
