"""The stage notebooks, in dependency order: everything about a stage in its one `Stage` entry.

A stage's entry names its notebook `notebooks/<notebook>.md` (MyST, paired by jupytext; papermill executes it into
`results_dir(profile)/executed/<name>.ipynb`), the stages whose outputs it reads, its parameter profiles, the files
it writes (`output_files`, from which `outputs` builds the path functions and the run report counts its items), how
its work grows with its parameters (`Scale`, for `projection`) and the claims it records (`claim_table.CLAIMS` ids,
for the ledger). Adding a stage means writing its notebook and one entry here.

Profiles: `default` runs on the embedded models within this machine's time budget; `paper` uses the papers' sizes;
`smoke` tests the code path in seconds per stage (the smallest model in every model role, the fewest items) and
writes under `results/smoke/`, apart from the real run (see `paths.results_dir`); `pilot` runs the published run's
generating choices (`PUBLISHED_CHOICES`: models, lengths, judges) on a few items per stage, to time them on this
machine and to estimate the variances the published run is sized from; it writes under `results/pilot/` and
records its claims there; `published` runs the same choices at the sizes the pre-registration derived from the
pilot (`PUBLISHED_SIZES`; `llmcreativity reproduce` records it into `published/run`, which `make book` replays).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import output_files as out
from ..output_files import OutputFile
from ..writing.decoding import CHOSEN_DECODING

SMOKE_MODEL = "smollm2-135m"
"""The smallest registry language model: every model role of the smoke profile uses it."""

RECORDED_SETTINGS = {"dtype": "float32", "device": "cpu"}
"""The run settings of a profile whose calls are recorded and replayed on other machines: float32 on the CPU,
whatever the machine could do faster, so every local model's identity (and so every cache key) is the same on
an AVX2 CPU, a CPU with native bfloat16 and a machine with a GPU."""

RUN_SETTINGS: dict[str, dict[str, str]] = {
    "default": RECORDED_SETTINGS,
    "paper": RECORDED_SETTINGS,
    "smoke": RECORDED_SETTINGS,
    "pilot": RECORDED_SETTINGS,
    "published": RECORDED_SETTINGS,
    "decisive-pilot": RECORDED_SETTINGS,
    "decisive": RECORDED_SETTINGS,
}
"""Profile -> its run-wide settings of the local models (`dtype`, `device`), which every stage kernel gets as the
defaults of `get_backend` and `get_embedder`; `-p dtype` / `-p device` override them (on a GPU:
`-p device cuda -p dtype auto`, under other identities). A profile or setting not listed is "auto"."""

SCIFI_CATEGORIES = 10
"""SciFi-100's categories (a `None` category count means all of them)."""
SCIFI_PER_CATEGORY = 10
"""Prompts per SciFi-100 category (a `None` per-category count means all of them)."""


PUBLISHED_WRITER = "llama.cpp:qwen2.5-coder-0.5b"
"""The published run's writer: the largest model that writes a prompt's stories of every framework in minutes here
(the 135M model mostly misses the story format)."""
PUBLISHED_LARGE_WRITER = "llama.cpp:qwen2.5-coder-1.5b"
"""The larger Single Agent of claim A3: three times the writer's parameters."""
PUBLISHED_ENTAILMENT_JUDGE = "qwen2.5-coder-0.5b"
"""The published run's LLM entailment judge (semantic entropy's clustering, and B7). Neither LLM judge here beat
chance on 30 MuseScorer ideas (step 0: the 0.5B and the 1.5B judge alike), so the claims it gates are reported
"judge not validated" and the cheaper one runs them; the 1.5B judge asks its questions about 2.5 times slower."""
PUBLISHED_CONVERGENT_JUDGE = "llama.cpp:qwen2.5-coder-0.5b"
"""The published run's convergent judges' model; B10's weaker model is the 135M one."""
PUBLISHED_SE_MODELS = ["llama.cpp:smollm2-135m", "llama.cpp:qwen2.5-coder-0.5b"]
"""The published run's semantic-entropy models: two sizes of the smallest cost, enough to run B2 and B11 (scale),
whose verdicts rest on judges that failed in step 0 (their compute saved)."""

PUBLISHED_CHOICES: dict[str, dict[str, Any]] = {
    "backends": {},
    "scifi100": {},
    "baselines": {"writer": PUBLISHED_WRITER, "large_writer": PUBLISHED_LARGE_WRITER, "rounds": 1,
                  "max_story_words": 300, "feedback_max_tokens": 200, "large_prompts": 1},
    "review": {"writer": PUBLISHED_WRITER, "max_story_words": 300, "feedback_max_tokens": 200},
    "writing_pilot": {"writer": PUBLISHED_WRITER, "large_writer": PUBLISHED_LARGE_WRITER, "max_story_words": 300,
                      "feedback_max_tokens": 200},
    "corpus": {},
    "judge_lab": {"checklist_judges": ["llama.cpp:qwen2.5-coder-0.5b"]},
    "entailment_validation": {"entailment_judges": [PUBLISHED_ENTAILMENT_JUDGE, "qwen2.5-coder-1.5b"],
                              "entailment_judge": PUBLISHED_ENTAILMENT_JUDGE},
    "semantic_entropy": {"se_models": PUBLISHED_SE_MODELS, "judge": "llm",
                         "entailment_judge": PUBLISHED_ENTAILMENT_JUDGE, "n_samples": 6, "max_tokens": 48,
                         "novelty_judge": "llama.cpp:qwen2.5-coder-1.5b"},
    "judge_validation": {"convergent_judge": PUBLISHED_CONVERGENT_JUDGE,
                         "weak_convergent_judge": "llama.cpp:smollm2-135m", "k_sweep": [2], "se_judge": "p_yes"},
    "evaluation": {"judge_prompts": 1, "stories_per_run": 1, "a2_kl": "whole"},
}
"""Stage -> the published run's generating choices (models, story lengths, rounds, judges) that are not sizes: the
`pilot` profile runs them on a few items, the published run at the sizes its pre-registration derives from the
pilot. The rubric judge (qwen2.5-coder-1.5b on llama.cpp) and the corpus are the default profile's. Teacher, Debate
and Discussion revise once, as Review does (each further round adds about half again to their cost: the pilot
measured about 13 minutes a prompt for the baselines with two rounds), so A4's convergence is draft -> revision for
every framework. Where a claim's judge failed in step 0 (30 labelled items each: the rubric judge gating A1 and
A3, the entailment judges gating B1-B4, B7 and B8, the convergent judges gating B6 and B11) its compute is saved:
the larger Single Agent writes for one prompt (A3), the rubric judge grades one story per framework (A1), semantic
entropy runs two models, and the chains' convergent scorer is the cheap p(Yes) judge instead of the paper's
multi-agent one (B6, B11)."""

PILOT_SIZES: dict[str, dict[str, Any]] = {
    "baselines": {"n_categories": 2, "per_category": 1},
    "review": {"n_categories": 2, "per_category": 1},
    "entailment_validation": {"llm_sample": 30, "b7_sets": 3},
    "semantic_entropy": {"temperatures": [0.3, 1.5], "n_problems": 1, "n_hypogen": 1, "step_cap": 2},
    "judge_validation": {"n_items": 30},
    "evaluation": {"hanna_n": 30},
}
"""Stage -> the pilot's sizes: a few items per stage, and 30 labelled items for every judge that gates a claim (the
rubric judge on HANNA, the entailment judges on MuseScorer, the convergent judges on MacGyver)."""


PUBLISHED_SIZES: dict[str, dict[str, Any]] = {
    "baselines": {"n_categories": 7, "per_category": 2},
    "review": {"n_categories": 7, "per_category": 2},
    "writing_pilot": {"screen_categories": 7, "screen_per_category": 1, "confirm_categories": 2,
                      "confirm_per_category": 1, "large_prompts": 1},
    "entailment_validation": {"llm_sample": 30, "b7_sets": 3},
    "semantic_entropy": {"temperatures": [0.3, 1.5], "n_problems": 1, "n_hypogen": 1, "step_cap": 2},
    "judge_validation": {"n_items": 30},
    "evaluation": {"hanna_n": 44},
    "judge_lab": {"lm_items": 600},
}
"""Stage -> the published run's sizes: for each claim the stage decides, the minimum sample its pre-registration
(`published/preregistration`) derives from the pilot: prompts for A2 and A4, HANNA stories for A5, labelled
MacGyver items for B9 and B10. The stages whose claims rest on a judge that failed in the pilot keep the pilot's
sizes (their compute saved): semantic entropy (B1-B4, B8) and B7's idea sets. `tests/pipeline/test_published_profile.py`
checks them against the committed registration."""


DECISIVE_CHANGES: dict[str, dict[str, Any]] = {
    "baselines": {"decoding": CHOSEN_DECODING},
    "review": {"decoding": CHOSEN_DECODING, "story_filter": "passing"},
    "semantic_entropy": {"judge": "lab", "n_samples": 10},
    "entailment_validation": {"b7_judge": "lab"},
    "evaluation": {"story_filter": "passing"},
}
"""Stage -> the claims' re-decision's generating choices that differ from `PUBLISHED_CHOICES`, each a deviation the
second registration lists with its reason (`DECISIVE_DEVIATIONS`): the writers' decoding chosen on the writing pilot,
and semantic entropy clustered by the judge laboratory's confirmed equivalence judge at the paper's 10 samples a step
(its LLM entailment judge failed on 30 labelled ideas; the confirmed judge asks no model, so the paper's sample size
fits the budget)."""

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

DECISIVE_PILOT_SIZES: dict[str, dict[str, Any]] = PILOT_SIZES | {
    "semantic_entropy": {"temperatures": [0.3, 1.5], "n_problems": 3, "n_hypogen": 3, "step_cap": 3},
    "entailment_validation": {"llm_sample": 30, "b7_sets": 30},
}
"""Stage -> the sizing pilot of the claims' re-decision: the first pilot's sizes, and for semantic entropy the design
effect's inputs fixed before it ran: 3 problems per domain, a cap of 3 steps, 10 samples a step (`DECISIVE_CHANGES`).
The first pilot's items are among these (its prompts and first problems): they were seen before this sizing, and the
registration declares them."""

DECISIVE_SIZES: dict[str, dict[str, Any]] = PUBLISHED_SIZES | {
    "semantic_entropy": {"temperatures": [0.3, 1.5], "n_problems": 6, "n_hypogen": 6, "step_cap": 3},
    "entailment_validation": {"llm_sample": 30, "b7_sets": 100},
}
"""Stage -> the claims' re-decision's sizes, from its registration (`published/preregistration-2`): semantic entropy
on 6 problems of each domain (B2's 12 problems, the largest minimum of B1-B4; B8 not estimable from the pilot, the
claim table's 5), 100 sets of 5 ideas from each unseen MuseScorer object for B7 (the claim table's 30 sets govern:
not estimable from the pilot), and the published run's 14 prompts for A2 (14) and A4 (10).
`tests/pipeline/test_published_profile.py` checks them against the registration."""


def _decisive_pilot(stage: str) -> dict[str, Any]:
    return PUBLISHED_CHOICES[stage] | DECISIVE_CHANGES.get(stage, {}) | DECISIVE_PILOT_SIZES.get(stage, {})


def _decisive(stage: str) -> dict[str, Any]:
    return PUBLISHED_CHOICES[stage] | DECISIVE_CHANGES.get(stage, {}) | DECISIVE_SIZES.get(stage, {})


def _recorded(stage: str) -> dict[str, dict[str, Any]]:
    """A stage's entries of the recorded profiles and their pilots: pilot, published, decisive-pilot, decisive."""
    return {"pilot": _pilot(stage), "published": _published(stage), "decisive-pilot": _decisive_pilot(stage),
            "decisive": _decisive(stage)}


def _pilot(stage: str) -> dict[str, Any]:
    return PUBLISHED_CHOICES[stage] | PILOT_SIZES.get(stage, {})


def _published(stage: str) -> dict[str, Any]:
    return PUBLISHED_CHOICES[stage] | PUBLISHED_SIZES.get(stage, {})


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
    """Profile name -> parameter overrides (on top of the notebook's own defaults)."""
    outputs: tuple[OutputFile, ...] = ()
    """The files it writes into its folder; those with `items` hold the records the run report counts."""
    scale: Scale | None = None
    """How its work grows with its parameters; None: not projected."""
    claims: tuple[str, ...] = ()
    """The claim ids (`claim_table.CLAIMS`) its notebook records, some only under some parameters."""
    caches: tuple[str, ...] = ()
    """Folders beside its own, under the profile's results folder, that it builds and resumes from (the corpus
    store); a run against a record clears them with its own folder, so that it asks every recorded call again."""

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
        scale=Scale(lambda p: p["n_samples"] * len(p["temperatures"]), "n_samples x temperatures"),
        profiles={
            "default": {},
            **_recorded("backends"),
            "smoke": {"n_samples": 2, "max_tokens": 12},
            "paper": {"writer": "qwen2.5-coder-1.5b", "n_samples": 10},
        },
    ),
    Stage(
        name="scifi100",
        notebook="notebooks/scifi100_construction.md",
        title="SciFi-100: the prompts and how to build them",
        depends=("backends",),
        outputs=(out.SCIFI100_BUILT,),
        scale=Scale(lambda p: p["n_dimensions"] * p["n_candidates"], "n_dimensions x n_candidates"),
        profiles={
            "default": {},
            **_recorded("scifi100"),
            "smoke": {"writer": SMOKE_MODEL, "n_dimensions": 1, "n_candidates": 4, "keep": 2, "max_tokens": 128},
            "paper": {"n_dimensions": 10, "n_candidates": 20, "keep": 10},
        },
    ),
    Stage(
        name="baselines",
        notebook="notebooks/baselines.md",
        title="Baselines: Single Agent, Teacher, Debate, Discussion",
        depends=("backends",),
        outputs=(out.STORIES, out.TRANSCRIPTS, out.HOMOGENIZATION, out.LARGE_SINGLE, out.LARGE_SINGLE_STORIES),
        scale=Scale(_prompts, "prompts (n_categories x per_category)",
                    lambda p: (1 + p["rounds"]) * p["max_story_words"], "(1 + rounds) x max_story_words"),
        profiles={
            "default": {},
            **_recorded("baselines"),
            "smoke": {"n_categories": 1, "per_category": 1, "feedback_max_tokens": 32, "max_story_words": 40,
                      "large_writer": SMOKE_MODEL},
            "paper": {"n_categories": None, "per_category": None, "rounds": 3, "feedback_max_tokens": 400,
                      "max_story_words": 300, "large_prompts": None},
        },
    ),
    Stage(
        name="review",
        notebook="notebooks/review.md",
        title="LLM Review: blind peer review",
        depends=("backends", "baselines"),
        outputs=(out.STORIES, out.TRANSCRIPTS, out.HOMOGENIZATION),
        scale=Scale(_prompts, "prompts (n_categories x per_category)", lambda p: p["max_story_words"],
                    "max_story_words"),
        claims=("A4",),
        profiles={
            "default": {},
            **_recorded("review"),
            "smoke": {"n_categories": 1, "per_category": 1, "feedback_max_tokens": 32, "max_story_words": 40},
            "paper": {"n_categories": None, "per_category": None, "feedback_max_tokens": 400, "max_story_words": 300},
        },
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
                    lambda p: p["max_story_words"], "max_story_words"),
        profiles={
            "default": {},
            **_recorded("writing_pilot"),
            "smoke": {"decodings": ["none", "no-repeat-4gram"], "screen_categories": 1,
                      "frameworks": ["single", "review"], "feedback_max_tokens": 32, "max_story_words": 40,
                      "large_writer": SMOKE_MODEL},
            "paper": {"max_story_words": 300, "feedback_max_tokens": 400, "screen_categories": None,
                      "screen_per_category": 2, "confirm_categories": None, "large_prompts": 10},
        },
    ),
    Stage(
        name="corpus",
        notebook="notebooks/corpus.md",
        title="The reference corpus and the rule-based novelty metrics",
        depends=("backends",),
        outputs=(out.CORPUS_CHUNKS, out.CORPUS_EMBEDDINGS, out.CORPUS_META, out.UNIGRAMS, out.HANNA_METRICS,
                 out.HANNA_SURPRISAL),
        caches=(out.CORPUS_STORE_FOLDER,),
        scale=Scale(lambda p: p["n_surprisal"], "n_surprisal"),
        profiles={
            "default": {},
            **_recorded("corpus"),
            "smoke": {"max_books": 2, "n_stories": 8, "n_surprisal": 1, "surprisal_words": 40,
                      "projection_sample": 500},
            "paper": {"max_books": 0, "embedder": "all-mpnet-base-v2", "n_stories": 96, "n_surprisal": 96,
                      "projection_sample": 15000},
        },
    ),
    Stage(
        name="judge_lab",
        notebook="notebooks/judge_lab.md",
        title="The judge laboratory: judges chosen on one split, confirmed on another",
        outputs=(out.LAB_SPLIT, out.LAB_DEVELOPMENT, out.LAB_CONFIRMATION, out.LAB_CHOICE, out.LAB_HEADS),
        scale=Scale(_lab_texts, "texts embedded (solutions + problems, ideas, story chunks) x embedders"),
        profiles={
            "default": {},
            **_recorded("judge_lab"),
            "smoke": {"embedders": ["all-minilm-l6-v2"], "max_problems": 24, "max_ideas": 40, "hanna_n": 24,
                      "n_resamples": 200, "checklist_judges": [SMOKE_MODEL], "lm_items": 45},
            "paper": {},
        },
    ),
    Stage(
        name="entailment_validation",
        notebook="notebooks/entailment_validation.md",
        title="Semantic clusters against human 'same idea' judgements",
        depends=("backends",),
        outputs=(out.EMBEDDING_SWEEP, out.LLM_JUDGES, out.B7_SETS),
        scale=Scale(_entailment_calls, "entailment questions (judges x repeats x thresholds x llm_sample^2, B7 sets)"),
        claims=("B7",),
        profiles={
            "default": {},
            **_recorded("entailment_validation"),
            "smoke": {"rounds": [1], "embedding_sample": 30, "thresholds": [0.5, 0.6],
                      "entailment_judges": [SMOKE_MODEL], "llm_sample": 4, "llm_thresholds": [0.5], "llm_repeats": 1,
                      "b7_sets": 3, "b7_set_size": 3, "entailment_judge": SMOKE_MODEL},
            "paper": {"embedding_sample": 1200, "entailment_judges": ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"],
                      "llm_sample": 60, "llm_repeats": 3, "b7_sets": 30},
        },
    ),
    Stage(
        name="semantic_entropy",
        notebook="notebooks/semantic_entropy.md",
        title="Semantic entropy by temperature and scale",
        depends=("backends", "baselines", "review"),
        outputs=(out.CHAIN_RECORDS, out.STEPS, out.CHAIN_TABLE, out.DRAFTS, out.NOVELTY),
        scale=Scale(_se_calls, "model calls (chains x step_cap x n_samples, n_samples^2 for judge llm)",
                    lambda p: p["max_tokens"], "max_tokens"),
        claims=("B1", "B2", "B3", "B4", "B8"),
        profiles={
            "default": {},
            **_recorded("semantic_entropy"),
            "smoke": {"se_models": [SMOKE_MODEL], "temperatures": [0.3, 0.9], "n_problems": 1, "n_hypogen": 1,
                      "n_scifi": 0, "n_samples": 4, "step_cap": 1, "max_tokens": 16, "entailment_judge": SMOKE_MODEL,
                      "llm_check_steps": 0, "n_resamples": 200, "novelty_judge": SMOKE_MODEL},
            "paper": {"se_models": ["smollm2-135m", "gemma3-270m", "qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"],
                      "temperatures": [0.3, 0.6, 0.9, 1.2, 1.5], "n_problems": 20, "n_hypogen": 20, "n_scifi": 10,
                      # a cap of 12 lets chains finish: 99 % of MacGyver's "Step k:" solutions have <= 7 steps, max 11
                      "n_samples": 10, "step_cap": 12, "max_tokens": 64, "judge": "llm", "llm_check_steps": 0,
                      "novelty_judge": "qwen2.5-coder-1.5b"},
        },
    ),
    Stage(
        name="judge_validation",
        notebook="notebooks/judge_validation.md",
        title="Convergent creativity: validating the judges",
        depends=("backends", "semantic_entropy"),
        outputs=(out.JUDGE_RUNS,),
        scale=Scale(_judge_calls, "judge calls (n_items x arms, discussions, SE chains judged)",
                    lambda p: p["max_tokens"], "max_tokens"),
        claims=("B5", "B6", "B9", "B10", "B11"),
        profiles={
            "default": {},
            **_recorded("judge_validation"),
            "smoke": {"n_items": 2, "convergent_judge": SMOKE_MODEL, "rounds": 1, "k_sweep": [2], "t_sweep": [0.8],
                      "max_tokens": 32, "n_resamples": 200},
            "paper": {"n_items": 300, "n_ablation": 0, "criteria": "macgyver", "convergent_judge": "qwen2.5-coder-1.5b",
                      "weak_convergent_judge": "qwen2.5-coder-0.5b", "rounds": 3, "k": 5, "k_sweep": [1, 3, 5, 8],
                      "stop_confidence": 0.5,  # the authors' README: "A confidence-based early-exit (T = 0.5)"
                      "t_sweep": [0.5, 0.6, 0.7, 0.8, 0.9, 1.01], "max_tokens": 256, "cot_max_tokens": 400,
                      # B6 and B11 are decided only with the paper's convergent scorer (divergent.PAPER_SCORER)
                      "se_judge": "retrieval"},
        },
    ),
    Stage(
        name="evaluation",
        notebook="notebooks/evaluation.md",
        title="Evaluating the stories: rubric judge, novelty metrics and the paper's claims",
        depends=("corpus", "baselines", "review"),
        outputs=(out.RUBRIC_SCORES, out.RUBRIC_HANNA, out.RESULTS_TABLE, out.STORY_SCORES),
        scale=Scale(_gradings, "rubric gradings ((judged stories + hanna_n) x dimensions)",
                    lambda p: p["repeats"] + 1, "repeats + 1"),
        claims=("A1", "A2", "A3", "A5"),
        profiles={
            "default": {},
            **_recorded("evaluation"),
            "smoke": {"rubric_judge": SMOKE_MODEL, "hanna_n": 3, "judge_prompts": 1, "stories_per_run": 1,
                      "repeats": 2, "kl_window": 20, "surprisal_words": 10},
            "paper": {"judge_prompts": None, "stories_per_run": None, "hanna_n": 96,
                      "surprisal_scorer": "qwen2.5-coder-1.5b", "a2_kl": "whole"},
        },
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
