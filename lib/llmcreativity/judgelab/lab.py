"""The laboratory's runs, one function per step of a job, for the judge_lab notebook: features, the development
comparison, the proposed choice, and the confirmation on the test split from the committed choice.

Files: the stage writes each job's split, development table, proposed choice (with its fitted heads) and
confirmation into its results folder (`output_files.LAB_*`); the committed choice and its heads live in
`published/judges/` (`choice`). `adopt(job)` copies a proposal there, to be committed. A confirmation runs only
from a committed choice made on the same split (`confirm_job`); without one, a run that records claims scores no
test split, and a smoke run (which records nothing) confirms its own proposal, marked provisional.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .. import output_files as out
from ..dataclass_json import to_json
from ..hashing import sha256_file
from ..jsonl import write_json
from ..llm.backend import Backend, TextEmbedder
from ..paths import REPO_ROOT
from ..stats.agreement import adjusted_rand
from . import binary_agreement, checklist, equivalence, features, solutions, stories
from .choice import CHOICE_DIR, Choice, CommittedChoice, committed_choice, recorded_choice
from .heads import FittedHead, load_head, save_head
from .jobs import job_spec
from .splits import Split, assert_unseen, save_split


@dataclass(frozen=True)
class Confirmation:
    """A chosen judge's agreement on its test split, and what it was scored from."""

    job: str
    """The judging job."""
    judge: str
    """The confirmed judge's name: job, protocol and the first 12 hex digits of its choice file's hash."""
    protocol: str
    """The chosen protocol."""
    statistic: str
    """The gating statistic (`jobs.JobSpec.statistic`)."""
    estimate: float
    """Its value on the test split."""
    low: float
    """Lower end of its 95 % CI."""
    high: float
    """Upper end."""
    chance: float
    """Its value at chance."""
    n: int
    """Test items scored."""
    groups: int
    """Test groups (problems, objects, stories) they belong to."""
    baseline: str
    """The baseline scored on the same items."""
    baseline_estimate: float
    """The baseline's statistic."""
    difference_low: float
    """Lower end of the paired 95 % CI of judge - baseline."""
    difference_high: float
    """Upper end."""
    ceiling: float
    """The human ceiling on the same scale."""
    split_sha256: str
    """The split's hash."""
    choice_commit: str
    """The choice file's commit ("" for a provisional choice)."""
    choice_sha256: str
    """The choice file's hash."""
    provisional: bool
    """True when the choice was not committed (a smoke run's own proposal): not a validity record."""
    details: dict[str, Any]
    """The job's other figures (kappa, AUC within each source, ARI per object and coder, ...)."""

    @property
    def confirmed(self) -> bool:
        """The gate: the CI above chance and the paired difference from the baseline above 0."""
        if self.low is None or self.difference_low is None or self.low != self.low:
            return False
        return self.low > self.chance and self.difference_low > 0 and not self.provisional


def judge_name(job: str, protocol: str, choice_sha256: str) -> str:
    """E.g. "convergent: embedding head (all-minilm-l6-v2) [lab 1a2b3c4d5e6f]"."""
    return f"{job}: {protocol} [lab {choice_sha256[:12] or 'provisional'}]"


def seconds_per_text(embedder: TextEmbedder, texts: Sequence[str], n: int = 32) -> float:
    """Wall seconds the embedder (its uncached model, where it is wrapped by the call cache) takes per text on the
    first `n` distinct texts: the cost of a protocol's features, measured on this machine."""
    inner = getattr(embedder, "inner", embedder)
    sample = list(dict.fromkeys(texts))[:n]
    inner.encode(sample[:2])  # the first call's set-up is not a text's cost
    start = time.perf_counter()
    inner.encode(sample)
    return (time.perf_counter() - start) / max(len(sample), 1)


def propose(job: str, protocol: str, rule: str, split_sha256: str, heads: Mapping[str, FittedHead], folder: Path,
            settings: dict[str, Any], development: dict[str, Any]) -> Choice:
    """Write the proposed choice and its heads into `folder` (`<job>.choice.json`, `<job>.<role>.head.json`)."""
    names, digests = {}, {}
    for role, head in heads.items():
        name = out.LAB_HEADS.relative(job=job, role=re.sub(r"[^a-z0-9]+", "-", role.lower()).strip("-"))
        digests[role] = sha256_file(save_head(head, folder / name))
        names[role] = name
    choice = Choice(job, protocol, rule, split_sha256, names, digests, settings, development)
    write_json(folder / out.LAB_CHOICE.relative(job=job), to_json(choice))
    return choice


def adopt(job: str, folder: Path, root: Path | None = None) -> Path:
    """Copy a proposal (`propose`) from `folder` into `published/judges/` under `root`, to be committed before the
    test split is scored; return the choice file."""
    target = (root or REPO_ROOT) / CHOICE_DIR
    target.mkdir(parents=True, exist_ok=True)
    for f in sorted(folder.glob(f"{job}.*")):
        shutil.copyfile(f, target / f.name)
    return target / out.LAB_CHOICE.relative(job=job)


def committed_heads(found: CommittedChoice) -> dict[str, FittedHead]:
    """The heads a committed choice scores with, each checked against its recorded hash."""
    folder = REPO_ROOT / CHOICE_DIR
    heads = {}
    for role, name in found.choice.heads.items():
        path = folder / name
        if sha256_file(path) != found.choice.head_sha256.get(role):
            raise ValueError(f"{path}: its hash differs from the one its choice {found.path} recorded; restore it "
                             "from git")
        heads[role] = load_head(path)
    return heads


# solution validity ----------------------------------------------------------------------------------------------

def solution_features(items: pd.DataFrame, embedders: Mapping[str, TextEmbedder]
                      ) -> tuple[dict[str, tuple[np.ndarray, list[str]]], dict[str, float]]:
    """(protocol -> feature table, protocol -> seconds per item): the baselines and one embedding head per
    embedder. An item's cost is its solution's and problem's encoding (the problem's shared by its solutions)."""
    table = {solutions.BASELINE: features.one_hot(items["source"].astype(str).tolist()),
             "length only": features.length_features(items["solution"].tolist())}
    cost = {solutions.BASELINE: 0.0, "length only": 0.0}
    for name, emb in embedders.items():
        protocol = f"embedding head ({name})"
        table[protocol] = features.solution_features(emb, items["problem"].tolist(), items["solution"].tolist(), name)
        per_problem = items["problem_id"].nunique() / len(items)
        cost[protocol] = seconds_per_text(emb, items["solution"].tolist()) * (1 + per_problem)
    if len(embedders) >= 2:
        cost["panel"] = sum(v for k, v in cost.items() if k.startswith("embedding head"))
    return table, cost


def lm_solution_features(items: pd.DataFrame, rows: np.ndarray, lms: Mapping[str, Backend]
                         ) -> dict[str, tuple[np.ndarray, list[str]]]:
    """The language-model protocols' features over all of `items`, read in `rows` only (NaN elsewhere): per model,
    "checklist (M)" (the log-odds of every checklist answer) and "p(yes) (M)" (the direct question's)."""
    table = {}
    for name, lm in lms.items():
        x = np.full((len(items), len(checklist.SOLUTION_QUESTIONS)), np.nan)
        if rows.any():
            x[rows] = checklist.log_odds(checklist.answer_matrix(lm, items["problem"][rows].tolist(),
                                                                 items["solution"][rows].tolist()))
        table[f"{solutions.CHECKLIST_PREFIX} ({name})"] = (x, [f"q{i + 1}" for i in range(x.shape[1])])
        table[f"{solutions.DIRECT_PREFIX} ({name})"] = (x[:, [checklist.DIRECT]], ["direct question"])
    return table


def lm_seconds(lm: Backend, items: pd.DataFrame, n: int = 2) -> float:
    """Wall seconds the language model (uncached, where the call cache wraps it) takes per solution to answer the
    whole checklist, on the first `n` solutions after one to warm it: the checklist protocols' cost (the direct
    question alone costs about one question's share of it, its prefix read once)."""
    inner = getattr(lm, "inner", lm)
    checklist.answer_matrix(inner, items["problem"][:1].tolist(), items["solution"][:1].tolist())
    start = time.perf_counter()
    checklist.answer_matrix(inner, items["problem"][1:n + 1].tolist(), items["solution"][1:n + 1].tolist())
    return (time.perf_counter() - start) / n


def propose_solution_judge(items: pd.DataFrame, split: Split, table: Mapping[str, tuple[np.ndarray, list[str]]],
                           development: solutions.Development, folder: Path, lm_settings: dict[str, Any]) -> Choice:
    """Apply the choice rule, fit the chosen protocol's heads and the baseline's on every development item, and
    write the proposal."""
    chosen = solutions.choose(development)
    row = development.table.set_index("protocol").loc[chosen].to_dict()
    heads = dict(solutions.fit_protocol(items, split, table, chosen))
    heads["baseline"] = solutions.fit_protocol(items, split, table, solutions.BASELINE)[solutions.BASELINE]
    return propose(solutions.JOB, chosen, solutions.CHOICE_RULE, split.sha256, heads, folder,
                   {"threshold": float(row["threshold"]), "head": solutions.HEAD_KIND,
                    "reserved_se_problems": solutions.RESERVED_SE_PROBLEMS, "test_share": solutions.TEST_SHARE,
                    "split_seed": solutions.SPLIT_SEED, **lm_settings},
                   {"auc": float(row["auc"]), "auc_low": float(row["auc_low"]), "auc_high": float(row["auc_high"]),
                    "items": int(row["items"]), "problems": int(row["problems"])})


def confirm_solution_judge(items: pd.DataFrame, split: Split, table: Mapping[str, tuple[np.ndarray, list[str]]],
                           choice: Choice, heads: Mapping[str, FittedHead], *, commit: str, choice_sha256: str,
                           n_resamples: int, seed: int, lms: Mapping[str, Backend] | None = None) -> Confirmation:
    """Score the test split once with the chosen heads, and the baseline on the same items. A protocol that reads a
    language model is scored on the test solutions `solutions.lm_rows` picks, its models' answers asked here (never
    before the choice is fixed)."""
    dev, test = split.mask(items["group"], "dev"), split.mask(items["group"], "test")
    assert_unseen(split, items["group"][dev], items["group"][test])
    table = dict(table)
    if solutions.needs_lm(choice.protocol, table):
        test = solutions.lm_rows(items, split, "test", per_problem=solutions.LM_TEST_PER_PROBLEM)
        named = [str(m) for m in choice.settings.get("lm_judges", [])]
        missing = sorted(set(named) - set(lms or {}))
        if missing:
            raise ValueError(f"the committed solution choice reads the language model(s) {missing}, which this run "
                             "did not load: run with `checklist_judges` naming them")
        for name, (x, cols) in lm_solution_features(items, test, {m: (lms or {})[m] for m in named}).items():
            merged = table[name][0].copy()
            merged[test] = x[test]
            table[name] = (merged, cols)
    members = {r: h for r, h in heads.items() if r != "baseline"}
    reference = dev & np.all([np.isfinite(table[m][0]).all(axis=1)
                              for m in solutions.panel_members(choice.protocol, list(table))], axis=0)
    s = solutions.protocol_scores(choice.protocol, members, table, test, reference)
    base = heads["baseline"].score(table[solutions.BASELINE][0][test])
    y, g = items["label"].to_numpy()[test], items["group"].to_numpy()[test]
    ci = binary_agreement.auc_interval(y, s, g, n_resamples=n_resamples, seed=seed)
    diff = binary_agreement.auc_difference(y, s, base, g, n_resamples=n_resamples, seed=seed)
    threshold = float(choice.settings["threshold"])
    kappa = binary_agreement.kappa_interval(y, s, threshold, g, n_resamples=n_resamples, seed=seed)
    ceiling = binary_agreement.duplicate_ceiling(items["group"], items["solution"].tolist(), items["valid"].tolist())
    sources = items["source"].to_numpy()[test]
    per_source = {str(src): binary_agreement.auc(y[sources == src], s[sources == src]) for src in sorted(set(sources))}
    spec = job_spec(solutions.JOB)
    return Confirmation(solutions.JOB, judge_name(solutions.JOB, choice.protocol, choice_sha256), choice.protocol,
                        spec.statistic, ci.estimate, ci.low, ci.high, spec.chance, int(test.sum()), len(set(g)),
                        solutions.BASELINE, binary_agreement.auc(y, base), diff.low, diff.high, ceiling["auc"],
                        split.sha256, commit, choice_sha256, not commit,
                        {"kappa": kappa.estimate, "kappa_low": kappa.low, "kappa_high": kappa.high,
                         "threshold": threshold, "ceiling": ceiling, "auc_by_source": per_source})


# semantic equivalence -------------------------------------------------------------------------------------------

def propose_equivalence_judge(objects: Mapping[str, equivalence.ObjectPairs], split: Split,
                              embedders: Mapping[str, TextEmbedder], development: pd.DataFrame,
                              folder: Path) -> Choice:
    """Apply the choice rule; fit the pair head on every development object and tune the chosen protocol's
    threshold and the baseline's there; write the proposal."""
    chosen = equivalence.choose(development)
    dev = [objects[g] for g in split.dev]
    head = equivalence.fit_pair_classifier(dev, split.sha256)
    threshold, dev_ari = equivalence.tune(dev, chosen, head)
    baseline = next(p for p in equivalence.protocols(list(embedders)) if p.startswith(equivalence.BASELINE))
    base_threshold, base_ari = equivalence.tune(dev, baseline, None)
    heads = {"pair classifier": head} if chosen.startswith("pair classifier") else {}
    means = development.groupby("protocol")["ari"].mean()
    return propose(equivalence.JOB, chosen, equivalence.CHOICE_RULE, split.sha256, heads, folder,
                   {"threshold": threshold, "baseline": baseline, "baseline_threshold": base_threshold,
                    "test_objects": list(split.test), "split_seed": equivalence.SPLIT_SEED},
                   {"leave_one_object_out_ari": float(means[chosen]), "tuned_ari": dev_ari,
                    "baseline_tuned_ari": base_ari, "objects": list(split.dev)})


def confirm_equivalence_judge(objects: Mapping[str, equivalence.ObjectPairs], split: Split,
                              embedders: Mapping[str, TextEmbedder], choice: Choice,
                              heads: Mapping[str, FittedHead], *, commit: str, choice_sha256: str,
                              n_resamples: int, seed: int) -> Confirmation:
    """Cluster the test objects once with the chosen judge and the baseline; ARI with each coder, paired intervals
    from resampled ideas, pairwise precision and recall, and the coders' own agreement as the ceiling."""
    from ..data.musescorer import CODERS

    test = [objects[g] for g in split.test]
    head = heads.get("pair classifier")
    baseline = str(choice.settings["baseline"])
    parts = {"judge": {o.object: equivalence.partition(o, choice.protocol, float(choice.settings["threshold"]), head)
                       for o in test},
             "baseline": {o.object: equivalence.partition(o, baseline, float(choice.settings["baseline_threshold"]),
                                                          None) for o in test}}

    def ari(judge: str, o: equivalence.ObjectPairs, rows: np.ndarray) -> float:
        if judge == "coders":
            return adjusted_rand(o.coders[CODERS[0]][rows], o.coders[CODERS[1]][rows])
        return equivalence.mean_ari(parts[judge][o.object], o, rows)

    every = {o.object: np.arange(len(o.ideas)) for o in test}
    estimate = {j: float(np.mean([ari(j, o, every[o.object]) for o in test])) for j in ("judge", "baseline", "coders")}
    draws = equivalence.resampled_agreement({**parts, "coders": {}}, test, ari, n_resamples=n_resamples, seed=seed)
    n = sum(len(o.ideas) for o in test)
    ci = equivalence.interval(estimate["judge"], draws["judge"], n)
    diff = equivalence.interval(estimate["judge"] - estimate["baseline"], draws["judge"] - draws["baseline"], n)
    ceiling = equivalence.interval(estimate["coders"], draws["coders"], n)
    per_object = {o.object: {
        **{f"ari_{c}": adjusted_rand(o.coders[c], parts["judge"][o.object]) for c in CODERS},
        **{f"baseline_ari_{c}": adjusted_rand(o.coders[c], parts["baseline"][o.object]) for c in CODERS},
        "coders_ari": adjusted_rand(o.coders[CODERS[0]], o.coders[CODERS[1]]),
        "ideas": len(o.ideas), "clusters": int(len(np.unique(parts["judge"][o.object]))),
        **{f"{k}_{c}": v for c in CODERS
           for k, v in zip(("precision", "recall"),
                           equivalence.pair_precision_recall(parts["judge"][o.object], o.coders[c]), strict=True)},
    } for o in test}
    spec = job_spec(equivalence.JOB)
    return Confirmation(equivalence.JOB, judge_name(equivalence.JOB, choice.protocol, choice_sha256), choice.protocol,
                        spec.statistic, ci.estimate, ci.low, ci.high, spec.chance, n, len(test), baseline,
                        estimate["baseline"], diff.low, diff.high, ceiling.estimate, split.sha256, commit,
                        choice_sha256, not commit,
                        {"per_object": per_object, "ceiling_low": ceiling.low, "ceiling_high": ceiling.high})


# story quality --------------------------------------------------------------------------------------------------

def story_features(stories_text: Sequence[str], embedders: Mapping[str, TextEmbedder]
                   ) -> tuple[dict[str, tuple[np.ndarray, list[str]]], dict[str, float]]:
    """(protocol -> feature table, protocol -> seconds per story) of the embedding heads."""
    table, cost = {}, {}
    for name, emb in embedders.items():
        table[f"embedding head ({name})"] = features.story_features(emb, stories_text, name)
        pieces = [c for s in stories_text[:8] for c in features.chunks(s)]
        cost[f"embedding head ({name})"] = seconds_per_text(emb, pieces, n=len(pieces)) * len(pieces) / min(
            8, len(stories_text))
    return table, cost


def confirm_story_judge(hanna: Any, table: Mapping[str, tuple[np.ndarray, list[str]]], choice: Choice, *,
                        commit: str, choice_sha256: str, n_resamples: int, seed: int,
                        story_ids: list[int]) -> Confirmation:
    """The nested cross-validation's out-of-fold scores of the committed rule (a provisional choice, `commit` "",
    picks among the embedding heads this run computed): Spearman's rho with the consensus
    (interval over stories, paired with the length baseline), with each criterion, and judge-vs-two-raters beside
    the ceiling rater-vs-two."""
    from ..data.hanna import CRITERIA
    from ..stats import bootstrap_ci, spearman

    named = choice.settings["candidates"] if commit else [k for k in table if k.startswith("embedding head")]
    candidates = {k: v for k, v in table.items() if k in named}
    missing = sorted(set(named) - set(candidates))
    if missing:
        raise ValueError(f"the committed story choice names {missing}, which this run did not compute: run with the "
                         "embedders it names")
    target = stories.consensus(hanna).loc[story_ids].to_numpy()
    splits = stories.outer_splits(story_ids, folds=int(choice.settings["outer_folds"]),
                                  seed=int(choice.settings["split_seed"]))
    scores, chosen = stories.out_of_fold_scores(candidates, target, story_ids, splits)
    texts = hanna.stories.set_index("story_id").loc[story_ids, "story"].tolist()
    length = features.length_features(texts)[0][:, 0]
    rho = bootstrap_ci([scores, target], lambda a, b: spearman(a, b)[0], n_resamples=n_resamples, seed=seed)
    diff = bootstrap_ci([scores, length, target], lambda a, b, c: spearman(a, c)[0] - spearman(b, c)[0],
                        n_resamples=n_resamples, seed=seed)
    series = pd.Series(scores, index=story_ids)
    ceiling = stories.rater_ceiling(hanna)
    means = stories.criterion_means(hanna).loc[story_ids]
    spec = job_spec(stories.JOB)
    return Confirmation(stories.JOB, judge_name(stories.JOB, choice.protocol, choice_sha256), choice.protocol,
                        spec.statistic, rho.estimate, rho.low, rho.high, spec.chance, len(story_ids), len(story_ids),
                        stories.BASELINE, spearman(length, target)[0], diff.low, diff.high,
                        float(ceiling[ceiling["criterion"] == "consensus"]["rho"].mean()),
                        stories.splits_sha256(splits), commit, choice_sha256, not commit,
                        {"chosen_per_fold": chosen, "judge_vs_two_raters": stories.judge_vs_two(series, hanna),
                         "rho_by_criterion": {c: spearman(scores, means[c])[0] for c in CRITERIA.values()},
                         "ceiling_by_criterion": ceiling.groupby("criterion")["rho"].mean().to_dict()})


def save_split_file(split: Split, folder: Path, job: str) -> Path:
    """The split as the stage stores it (`<job>_split.json`)."""
    return save_split(split, folder / out.LAB_SPLIT.relative(job=job))


# the steps every job shares ---------------------------------------------------------------------------------------

def subset_problems(items: pd.DataFrame, max_problems: int) -> pd.DataFrame:
    """The solutions of the first `max_problems` problems by id (0: every problem), for a quick run; the split of a
    subset differs from the full one, so no committed choice applies to it."""
    if max_problems <= 0:
        return items
    keep = sorted(items["problem_id"].unique())[:max_problems]
    return items[items["problem_id"].isin(keep)].reset_index(drop=True)


def subset_ideas(items: pd.DataFrame, max_ideas: int) -> pd.DataFrame:
    """The first `max_ideas` ideas of each object in file order (0: all of them)."""
    if max_ideas <= 0:
        return items
    return items.groupby("group", sort=False).head(max_ideas).reset_index(drop=True)


def equivalence_cost(items: pd.DataFrame, embedders: Mapping[str, TextEmbedder]) -> dict[str, float]:
    """Seconds per idea of each protocol's features: its embedders' encoding (the pair classifier reads all)."""
    texts = items["idea_content"].astype(str).tolist()
    each = {name: seconds_per_text(emb, texts) for name, emb in embedders.items()}
    cost = {p: each[p[p.index("(") + 1:p.rindex(")")]] for p in equivalence.protocols(list(embedders))
            if not p.startswith("pair classifier")}
    cost.update({p: sum(each.values()) for p in equivalence.protocols(list(embedders)) if p.startswith("pair")})
    return cost


def equivalence_summary(development: pd.DataFrame, cost: Mapping[str, float]) -> pd.DataFrame:
    """One row per protocol: its mean ARI over the development objects left out (and per coder), and its cost."""
    table = development.groupby("protocol", sort=False)[["ari", "ari_ali", "ari_krish", "clusters"]].mean()
    return table.reset_index().assign(seconds=lambda d: d["protocol"].map(cost))


def coder_ceiling(objects: Mapping[str, equivalence.ObjectPairs], groups: Sequence[str]) -> float:
    """The coders' mean ARI with each other over the objects `groups`."""
    return float(np.mean([adjusted_rand(*objects[g].coders.values()) for g in groups]))


def proposal(job: str, folder: Path) -> tuple[Choice, dict[str, FittedHead]]:
    """The proposal `propose` wrote into `folder`, with its heads."""
    from ..dataclass_json import from_json

    choice = from_json(Choice, json.loads((folder / out.LAB_CHOICE.relative(job=job)).read_text(encoding="utf-8")))
    return choice, {role: load_head(folder / name) for role, name in choice.heads.items()}


def confirm_job(job: str, split: Split | None, records: bool, folder: Path,
                scorer: Any, *, story_ids: list[int] | None = None) -> Confirmation | None:
    """Score `job`'s test split once with `scorer(choice, heads, commit, choice_sha256)`.

    A run that records claims scores it from the committed choice made on this split, or not at all (None: the
    test split stays unscored). A run that records nothing (smoke) always scores its own proposal, marked
    provisional: it never reads a committed choice, so it runs on a tree with uncommitted changes. The story job's
    split is its nested cross-validation's (`story_ids`)."""
    from .choice import choice_path

    if split is not None:
        digest = split.sha256
    else:
        if story_ids is None:
            raise ValueError("the story job needs its story_ids to name its split")
        digest = stories.splits_sha256(stories.outer_splits(story_ids))
    path = choice_path(job)
    if records and path.exists():
        from ..dataclass_json import from_json

        stored = from_json(Choice, json.loads(path.read_text(encoding="utf-8")))
        if stored.split_sha256 == digest:
            found = _scored_choice(job)
            result: Confirmation = scorer(found.choice, committed_heads(found), found.commit, found.sha256)
            write_json(outputs_file(job, folder), to_json(result))
            return result
    if records:
        return None
    if split is None:
        choice = Choice(job, "nested choice among embedding heads", stories.CHOICE_RULE, digest,
                        settings={"candidates": [f"embedding head ({e})" for e in stories.CANDIDATE_EMBEDDERS],
                                  "outer_folds": stories.OUTER_FOLDS, "split_seed": stories.SPLIT_SEED})
        heads: dict[str, FittedHead] = {}
    else:
        choice, heads = proposal(job, folder)
    result = scorer(choice, heads, "", "")
    write_json(outputs_file(job, folder), to_json(result))
    return result


def _scored_choice(job: str) -> CommittedChoice:
    """The committed choice a test split is scored from: in a replay, the one its record's validity rows name
    (`choice.recorded_choice`, no git state read, since the record already holds the scores); live, the one git
    shows committed with the code that scores it (`choice.committed_choice`)."""
    from ..claims.judge_validity import LAB_STAGE
    from ..context import kernel_context
    from ..record_file import read_record

    record = kernel_context().record
    if record is None:
        return committed_choice(job)  # the code and the choice must be committed
    stage = read_record(record).stages.get(LAB_STAGE)
    return recorded_choice(job, stage.judge_validity if stage is not None else ())


def outputs_file(job: str, folder: Path) -> Path:
    """Where the stage writes a job's confirmation (`output_files.LAB_CONFIRMATION`)."""
    return folder / out.LAB_CONFIRMATION.relative(job=job)


def describe(result: Confirmation | None, proposed: Choice | None) -> str:
    """The job's finding in words: the test figure against chance, baseline and ceiling, or why no test split was
    scored."""
    if result is None:
        chosen = f" The development rule proposes **{proposed.protocol}**." if proposed else ""
        return ("**No choice is committed for this split, so its test split was not scored** (it stays unseen for "
                f"the protocols still to compare).{chosen}")
    ci = f"{_num(result.estimate)} [{_num(result.low)}, {_num(result.high)}]"
    diff = f"[{_num(result.difference_low, '+.3f')}, {_num(result.difference_high, '+.3f')}]"
    where = ("a provisional choice (not committed: this run records nothing)" if result.provisional else
             f"the choice committed in {result.choice_commit[:12]} (choice file sha256 {result.choice_sha256[:12]})")
    above_chance = result.low is not None and result.low > result.chance
    verdict = ("**Confirmed**: its interval lies above chance and above the baseline." if result.confirmed else
               "**Finding: not confirmed** — " + ("it does not beat its baseline on the same items." if above_chance
                                                  else "its interval reaches chance."))
    return (f"{result.protocol}, scored once on {result.n} test items ({result.groups} groups) from {where}: "
            f"{result.statistic} {ci} (chance {result.chance:g}); baseline {result.baseline} "
            f"{_num(result.baseline_estimate)}, paired difference {diff}; human ceiling on the same scale "
            f"{_num(result.ceiling)}. {verdict}")


def _num(x: float | None, spec: str = ".3f") -> str:
    """`x` formatted, or "undefined" where it is missing or NaN (a file stores NaN as null)."""
    return "undefined" if x is None or x != x else format(x, spec)


def record_validity(results: Sequence[Confirmation]) -> None:
    """Record each committed (not provisional) confirmation as its job's judge validity."""
    from ..claims.judge_validity import record_judge_validity
    from ..stats.bootstrap import ConfidenceInterval

    for r in results:
        if r.provisional:
            continue
        record_judge_validity(r.job, r.judge, r.statistic, ConfidenceInterval.of(r.estimate, r.low, r.high, r.n),  # type: ignore[arg-type]
                              stage="judge_lab", chance=r.chance, ceiling=r.ceiling, baseline=r.baseline,
                              baseline_low=r.difference_low, baseline_high=r.difference_high,
                              split=f"test: {r.n} items of {r.groups} groups (split sha256 {r.split_sha256[:12]})",
                              choice_commit=r.choice_commit, choice_sha256=r.choice_sha256)


# one call per job, for the notebook -----------------------------------------------------------------------------

@dataclass(frozen=True)
class JobRun:
    """What the notebook shows of one job."""

    job: str
    """The judging job."""
    development: pd.DataFrame
    """The development comparison, one row per protocol, with seconds per item."""
    column: str
    """Its agreement column ("auc", "ari")."""
    ceiling: float
    """The human ceiling on that scale, on the development items."""
    proposal: Choice | None
    """The choice the rule proposes on this run's development split (None for the story job, whose choice is a
    rule)."""
    result: Confirmation | None
    """The test split's score, or None when it was not scored."""


def solution_job(items: pd.DataFrame, embedders: Mapping[str, TextEmbedder], folder: Path, *, max_problems: int,
                 records: bool, n_resamples: int, seed: int, lms: Mapping[str, Backend] | None = None,
                 lm_items: int = 0) -> JobRun:
    """The solution-validity job: split, features, development comparison, proposal, confirmation. With `lms`,
    each model answers the checklist for `lm_items` development solutions (`solutions.lm_rows`), and every protocol
    is compared on those."""
    items = subset_problems(items, max_problems)
    split = solutions.solution_split(items)
    save_split_file(split, folder, solutions.JOB)
    table, cost = solution_features(items, embedders)
    lms = dict(lms or {}) if lm_items > 0 else {}
    lm_settings: dict[str, Any] = {}
    if lms:
        rows = solutions.lm_rows(items, split, "dev", per_problem=solutions.LM_PER_PROBLEM,
                                 cap=min(lm_items, solutions.LM_DEV_ITEMS))
        table.update(lm_solution_features(items, rows, lms))
        for name, lm in lms.items():
            cost[f"{solutions.CHECKLIST_PREFIX} ({name})"] = lm_seconds(lm, items[rows])
            cost[f"{solutions.DIRECT_PREFIX} ({name})"] = cost[f"{solutions.CHECKLIST_PREFIX} ({name})"] / len(
                checklist.SOLUTION_QUESTIONS)
        cost[solutions.LM_PANEL] = sum(v for k, v in cost.items()
                                       if k.startswith(("embedding head", solutions.CHECKLIST_PREFIX)))
        lm_settings = {"lm_judges": list(lms), "lm_items": int(rows.sum()),
                       "lm_per_problem": solutions.LM_PER_PROBLEM,
                       "lm_test_per_problem": solutions.LM_TEST_PER_PROBLEM,
                       "questions": list(checklist.SOLUTION_QUESTIONS)}
    dev = solutions.develop(items, split, table, n_resamples=n_resamples, seed=seed)
    proposed = propose_solution_judge(items, split, table, dev, folder, lm_settings)
    shown = dev.table.assign(seconds=dev.table["protocol"].map(cost))
    shown.to_csv(folder / out.LAB_DEVELOPMENT.relative(job=solutions.JOB), index=False)
    in_dev = split.mask(items["group"], "dev")
    ceiling = binary_agreement.duplicate_ceiling(items["group"][in_dev], items["solution"][in_dev].tolist(),
                                       items["valid"][in_dev].tolist())["auc"]

    def score(choice: Choice, heads: dict[str, FittedHead], commit: str, digest: str) -> Confirmation:
        return confirm_solution_judge(items, split, table, choice, heads, commit=commit, choice_sha256=digest,
                                      n_resamples=n_resamples, seed=seed, lms=lms)

    return JobRun(solutions.JOB, shown, "auc", ceiling, proposed, confirm_job(solutions.JOB, split, records, folder,
                                                                              score))


def equivalence_job(items: pd.DataFrame, embedders: Mapping[str, TextEmbedder], folder: Path, *, max_ideas: int,
                    records: bool, n_resamples: int, seed: int) -> JobRun:
    """The semantic-equivalence job: split, pair features, leave-one-object-out comparison, proposal,
    confirmation."""
    items = subset_ideas(equivalence.idea_items(items), max_ideas)
    split = equivalence.equivalence_split(items)
    save_split_file(split, folder, equivalence.JOB)
    objects = equivalence.object_pairs(items, embedders)
    dev = equivalence.develop(objects, split, list(embedders))
    dev.to_csv(folder / out.LAB_DEVELOPMENT.relative(job=equivalence.JOB), index=False)
    proposed = propose_equivalence_judge(objects, split, embedders, dev, folder)
    shown = equivalence_summary(dev, equivalence_cost(items, embedders))

    def score(choice: Choice, heads: dict[str, FittedHead], commit: str, digest: str) -> Confirmation:
        return confirm_equivalence_judge(objects, split, embedders, choice, heads, commit=commit,
                                         choice_sha256=digest, n_resamples=n_resamples, seed=seed)

    return JobRun(equivalence.JOB, shown, "ari", coder_ceiling(objects, split.dev), proposed,
                  confirm_job(equivalence.JOB, split, records, folder, score))


def story_job(hanna: Any, embedders: Mapping[str, TextEmbedder], folder: Path, *, hanna_n: int, records: bool,
              n_resamples: int, seed: int) -> JobRun:
    """The story-quality job: features of the first `hanna_n` stories and the nested cross-validation of the
    committed rule."""
    story_ids = hanna.stories["story_id"].tolist()[:hanna_n]
    texts = hanna.stories.set_index("story_id").loc[story_ids, "story"].tolist()
    table, cost = story_features(texts, embedders)

    def score(choice: Choice, heads: dict[str, FittedHead], commit: str, digest: str) -> Confirmation:
        return confirm_story_judge(hanna, table, choice, commit=commit, choice_sha256=digest,
                                   n_resamples=n_resamples, seed=seed, story_ids=story_ids)

    result = confirm_job(stories.JOB, None, records, folder, score, story_ids=story_ids)
    shown = story_candidates(hanna, table, cost, story_ids)
    return JobRun(stories.JOB, shown, "rho", result.ceiling if result else float("nan"), None, result)


def story_candidates(hanna: Any, table: Mapping[str, tuple[np.ndarray, list[str]]], cost: Mapping[str, float],
                     story_ids: list[int]) -> pd.DataFrame:
    """Each embedding head alone, and story length, through the committed rule's outer folds: Spearman's rho of its
    out-of-fold scores with the consensus, and its seconds per story. Shown beside the rule's figure, never used to
    choose (the rule was committed before any story was scored)."""
    from ..stats import spearman

    target = stories.consensus(hanna).loc[story_ids].to_numpy()
    splits = stories.outer_splits(story_ids)
    texts = hanna.stories.set_index("story_id").loc[story_ids, "story"].tolist()
    rows = [{"protocol": stories.BASELINE, "rho": spearman(features.length_features(texts)[0][:, 0], target)[0],
             "seconds": 0.0}]
    for name in table:
        scores, _ = stories.out_of_fold_scores({name: table[name]}, target, story_ids, splits)
        rows.append({"protocol": name, "rho": spearman(scores, target)[0], "seconds": cost.get(name, float("nan"))})
    return pd.DataFrame(rows)


def show(run: JobRun, label: str) -> None:
    """The job's agreement-against-cost figure and its finding in words."""
    import matplotlib.pyplot as plt
    from IPython.display import Markdown, display

    from .lab_display import cost_figure

    chosen = run.proposal.protocol if run.proposal else ""
    fig = cost_figure(run.development, run.column, chance=job_spec(run.job).chance, ceiling=run.ceiling,
                      chosen=chosen, label=label)
    display(fig)
    plt.close(fig)
    display(Markdown(describe(run.result, run.proposal)))


def chapter_finding(job: str) -> str:
    """What the judge laboratory found for `job`, for the chapter whose own judges it stands beside: its
    confirmation in words (`describe`), or why there is none. Reads the laboratory's file from this run's results
    (the laboratory runs before the chapters that show this; a chapter run alone without it says so)."""
    from ..dataclass_json import from_json
    from ..paths import stage_dir

    spec = job_spec(job)
    path = stage_dir("judge_lab") / out.LAB_CONFIRMATION.relative(job=job)
    head = f"**The judge laboratory's {spec.title} judge** (chapter *The judge laboratory*): "
    if not path.exists():
        development = stage_dir("judge_lab") / out.LAB_DEVELOPMENT.relative(job=job)
        why = ("its development comparison ran, but no choice is committed for its split, so the test split was not "
               "scored." if development.exists() else "the laboratory has not run in this results folder.")
        return head + why
    return head + describe(from_json(Confirmation, json.loads(path.read_text(encoding="utf-8"))), None)
