"""The judge laboratory's controls: a judge fitted on permuted labels agrees at chance, a group cannot sit on two
sides of a split, a saved head scores as the fitted one, no test item is seen in fitting or choosing, and a test
split is scored only from a committed choice."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from llmcreativity.judgelab import binary_agreement, equivalence, solutions, stories
from llmcreativity.judgelab.choice import Choice, UncommittedChoice, committed_choice, write_choice
from llmcreativity.judgelab.heads import fit_head, load_head, out_of_fold, save_head
from llmcreativity.judgelab.splits import Split, SplitError, assert_unseen, load_split, save_split, split_groups


def _solutions(n_problems: int = 60, per: int = 12, signal: float = 1.5, seed: int = 0) -> tuple[pd.DataFrame, dict]:
    """Synthetic solutions: 8 features of which the first carries the label (strength `signal`), and problems whose
    valid share differs (so a leak of a problem's labels would show)."""
    rng = np.random.default_rng(seed)
    groups = np.repeat([str(g) for g in range(n_problems)], per)
    share = np.repeat(rng.uniform(0.2, 0.8, n_problems), per)
    y = (rng.uniform(size=groups.size) < share).astype(float)
    x = rng.normal(size=(groups.size, 8))
    x[:, 0] += signal * y
    items = pd.DataFrame({"group": groups, "label": y, "source": rng.choice(["a", "b"], groups.size)})
    return items, {"embedding head (toy)": (x, [f"f{i}" for i in range(8)])}


def _permuted_within_groups(items: pd.DataFrame, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    label = items["label"].to_numpy().copy()
    for g in items["group"].unique():
        rows = np.flatnonzero(items["group"].to_numpy() == g)
        label[rows] = rng.permutation(label[rows])
    return items.assign(label=label)


def test_the_whole_pipeline_on_labels_permuted_within_groups_agrees_at_chance() -> None:
    items, features = _solutions()
    split = split_groups("convergent", items["group"], test_share=0.3, seed=1)
    real = solutions.develop(items, split, features, n_resamples=400)
    assert real.table.set_index("protocol").loc["embedding head (toy)", "auc_low"] > 0.5  # the control has power
    shuffled = _permuted_within_groups(items, seed=2)
    dev = solutions.develop(shuffled, split, features, n_resamples=400)
    row = dev.table.set_index("protocol").loc["embedding head (toy)"]
    assert row["auc_low"] < binary_agreement.AUC_CHANCE < row["auc_high"]
    chosen = solutions.choose(dev)
    heads = solutions.fit_protocol(shuffled, split, features, chosen)
    test = split.mask(shuffled["group"], "test")
    s = solutions.protocol_scores(chosen, heads, features, test, split.mask(shuffled["group"], "dev"))
    ci = binary_agreement.auc_interval(shuffled["label"].to_numpy()[test], s, shuffled["group"].to_numpy()[test],
                             n_resamples=400)
    assert ci.low < binary_agreement.AUC_CHANCE < ci.high


def test_a_group_on_two_sides_of_a_split_is_refused() -> None:
    with pytest.raises(SplitError, match="'7' is in both dev and test"):
        Split("convergent", 0, ("1", "7"), ("7", "9"))
    with pytest.raises(SplitError, match="in both test and reserved"):
        Split("convergent", 0, ("1",), ("9",), ("9",))


def test_a_split_is_stored_with_its_hash_and_an_edited_file_is_refused(tmp_path: Path) -> None:
    split = split_groups("entailment", list("abcde"), test_share=0.4, seed=3, reserved=["e"])
    assert len(split.test) == 2 and split.reserved == ("e",) and "e" not in split.dev
    path = save_split(split, tmp_path / "s.json")
    assert load_split(path) == split
    path.write_text(path.read_text().replace('"seed": 3', '"seed": 4'))
    with pytest.raises(SplitError, match="edited"):
        load_split(path)


def test_the_split_is_a_function_of_the_seed_and_groups_alone() -> None:
    a = split_groups("convergent", [str(g) for g in range(50)], test_share=0.3, seed=5)
    b = split_groups("convergent", [str(g) for g in reversed(range(50))], test_share=0.3, seed=5)
    c = split_groups("convergent", [str(g) for g in range(50)], test_share=0.3, seed=6)
    assert a == b and a.test != c.test and len(a.test) == 15


def test_a_saved_head_scores_the_same_items_identically(tmp_path: Path) -> None:
    items, features = _solutions(n_problems=20)
    x, names = features["embedding head (toy)"]
    head = fit_head("logistic", x, items["label"].to_numpy(), items["group"], names, split_sha256="s")
    loaded = load_head(save_head(head, tmp_path / "h.json"))
    assert loaded == head
    assert np.array_equal(loaded.score(x), head.score(x))
    ridge = fit_head("ridge", x, x[:, 0] * 2 + 1, items["group"], names, split_sha256="s")
    assert np.array_equal(load_head(save_head(ridge, tmp_path / "r.json")).score(x), ridge.score(x))


def test_no_test_item_is_seen_in_fitting_or_choosing() -> None:
    items, features = _solutions()
    split = split_groups("convergent", items["group"], test_share=0.3, seed=1)
    test = split.mask(items["group"], "test")
    assert_unseen(split, items["group"][~test], items["group"][test])
    with pytest.raises(SplitError, match="fitted on non-development groups"):
        assert_unseen(split, items["group"], items["group"][test])
    # what the choice saw does not move when every test label and feature is changed
    changed = items.assign(label=np.where(test, 1 - items["label"], items["label"]))
    x = features["embedding head (toy)"][0].copy()
    x[test] = 0.0
    other = {"embedding head (toy)": (x, features["embedding head (toy)"][1])}
    a = solutions.develop(items, split, features, n_resamples=50)
    b = solutions.develop(changed, split, other, n_resamples=50)
    pd.testing.assert_frame_equal(a.table, b.table)
    ha = solutions.fit_protocol(items, split, features, "embedding head (toy)")
    hb = solutions.fit_protocol(changed, split, other, "embedding head (toy)")
    assert ha == hb


def test_out_of_fold_scores_never_read_their_own_label() -> None:
    items, features = _solutions(n_problems=30)
    x, names = features["embedding head (toy)"]
    y = items["label"].to_numpy()
    s = out_of_fold("logistic", x, y, items["group"], names, folds=5, split_sha256="s")
    groups = items["group"].to_numpy()
    flipped = y.copy()
    flipped[groups == "3"] = 1 - flipped[groups == "3"]
    s2 = out_of_fold("logistic", x, flipped, items["group"], names, folds=5, split_sha256="s")
    assert np.array_equal(s[groups == "3"], s2[groups == "3"])
    assert not np.array_equal(s, s2)


def test_the_story_judge_scores_each_story_from_a_fit_without_it() -> None:
    rng = np.random.default_rng(0)
    ids = list(range(40))
    x = rng.normal(size=(40, 5))
    target = x[:, 0] + rng.normal(scale=0.5, size=40)
    features = {"embedding head (toy)": (x, [f"f{i}" for i in range(5)])}
    splits = stories.outer_splits(ids, folds=4, seed=1)
    assert sorted(s for sp in splits for s in sp.test) == sorted(str(i) for i in ids)
    scores, chosen = stories.out_of_fold_scores(features, target, ids, splits)
    changed = target.copy()
    first = [int(s) for s in splits[0].test]
    changed[first] = -100.0
    again, _ = stories.out_of_fold_scores(features, changed, ids, splits)
    assert np.array_equal(scores[first], again[first]) and chosen == ["embedding head (toy)"] * 4


def test_the_duplicate_ceiling_compares_the_two_labels_of_a_text() -> None:
    ceiling = binary_agreement.duplicate_ceiling(["1", "1", "1", "1", "2", "2"], ["a", "A ", "b", "b", "a", "a"],
                                       [True, True, True, False, False, False])
    assert ceiling["pairs"] == 3 and ceiling["agreement"] == pytest.approx(2 / 3)


def _toy_object(name: str, seed: int) -> equivalence.ObjectPairs:
    rng = np.random.default_rng(seed)
    buckets = np.repeat(np.arange(6), 5)
    centres = rng.normal(size=(6, 16))
    v = centres[buckets] + rng.normal(scale=0.3, size=(30, 16))
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    cos = v @ v.T
    other = np.where(rng.uniform(size=30) < 0.2, (buckets + 1) % 6, buckets)
    return equivalence.ObjectPairs(name, tuple(f"idea {i}" for i in range(30)), {"ali": buckets, "krish": other},
                                   {"toy": cos}, np.eye(30))


def test_the_equivalence_judge_recovers_clear_buckets_and_is_tuned_on_development_only() -> None:
    objects = {n: _toy_object(n, s) for s, n in enumerate("abcde")}
    split = split_groups("entailment", list(objects), test_share=0.4, seed=0)
    head = equivalence.fit_pair_classifier([objects[g] for g in split.dev], split.sha256)
    t, dev_ari = equivalence.tune([objects[g] for g in split.dev], "pair classifier (average)", head)
    held = objects[split.test[0]]
    labels = equivalence.partition(held, "pair classifier (average)", t, head)
    assert dev_ari > 0.6 and equivalence.mean_ari(labels, held) > 0.6
    precision, recall = equivalence.pair_precision_recall(labels, held.coders["ali"])
    assert precision > 0.8 and recall > 0.8


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def test_the_test_split_is_scored_only_from_a_committed_choice(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "t@example.org")
    _git(tmp_path, "config", "user.name", "t")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "code.py").write_text("x = 1\n")
    choice = Choice("convergent", "embedding head (toy)", solutions.CHOICE_RULE, "abc")
    with pytest.raises(UncommittedChoice, match="does not exist"):
        committed_choice("convergent", tmp_path)
    path = write_choice(choice, tmp_path)
    with pytest.raises(UncommittedChoice, match="is not committed"):
        committed_choice("convergent", tmp_path)
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "choice")
    got = committed_choice("convergent", tmp_path)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    assert got.choice == choice and got.commit == head and len(got.sha256) == 64
    (tmp_path / "lib" / "code.py").write_text("x = 2\n")
    with pytest.raises(UncommittedChoice, match="uncommitted changes .*lib/code.py"):
        committed_choice("convergent", tmp_path)
    (tmp_path / "lib" / "code.py").write_text("x = 1\n")
    path.write_text(path.read_text().replace("toy", "edited"))
    with pytest.raises(UncommittedChoice, match="uncommitted"):
        committed_choice("convergent", tmp_path)


def test_a_run_that_records_nothing_scores_its_own_proposal_never_the_committed_choice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from llmcreativity.judgelab import choice as choice_module
    from llmcreativity.judgelab import lab

    ids = list(range(40))
    digest = stories.splits_sha256(stories.outer_splits(ids))
    committed = write_choice(Choice("rubric", "committed protocol", stories.CHOICE_RULE, digest), tmp_path)
    monkeypatch.setattr(choice_module, "choice_path", lambda job, root=None: committed)

    def dirty_tree(job: str, root: Path | None = None):
        raise UncommittedChoice("uncommitted changes")

    monkeypatch.setattr(lab, "committed_choice", dirty_tree)
    seen: list[tuple[str, str]] = []

    def scorer(choice: Choice, heads: dict, commit: str, sha: str) -> str:
        seen.append((choice.protocol, commit))
        return "scored"

    monkeypatch.setattr(lab, "write_json", lambda path, data: None)
    monkeypatch.setattr(lab, "to_json", lambda x: x)
    assert lab.confirm_job("rubric", None, False, tmp_path, scorer, story_ids=ids) == "scored"
    assert seen == [("nested choice among embedding heads", "")]  # provisional, on a dirty tree
    with pytest.raises(UncommittedChoice):  # a recording run reads the committed choice and its checks
        lab.confirm_job("rubric", None, True, tmp_path, scorer, story_ids=ids)


def test_a_replay_takes_the_choices_commit_from_its_records_validity_rows_after_checking_the_files_hash(
        tmp_path: Path) -> None:
    """`recorded_choice` reads no git state (`tmp_path` is no checkout): the commit is the validity row's whose
    `choice_sha256` is the file's; a changed file, or a record that scored no such choice, is refused by name."""
    from llmcreativity.hashing import sha256_file
    from llmcreativity.judgelab.choice import recorded_choice

    choice = Choice("convergent", "embedding head (toy)", solutions.CHOICE_RULE, "abc")
    with pytest.raises(UncommittedChoice, match="does not exist"):
        recorded_choice("convergent", [], tmp_path)
    path = write_choice(choice, tmp_path)
    rows = [{"choice_sha256": "0" * 64, "choice_commit": "c0"},
            {"choice_sha256": sha256_file(path), "choice_commit": "4cbdce86"}]
    got = recorded_choice("convergent", rows, tmp_path)
    assert got.choice == choice and got.commit == "4cbdce86" and got.sha256 == sha256_file(path)
    path.write_text(path.read_text().replace("toy", "edited"))
    with pytest.raises(UncommittedChoice, match=r"is not the choice the record scored \(its choices: 000000000000, "):
        recorded_choice("convergent", rows, tmp_path)


def test_a_replay_scores_from_the_record_and_a_live_run_keeps_the_git_guard(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`confirm_job` in a recording run: with the context's `record` set (a replay) the commit comes from the
    record's validity rows and git is never asked; without it (live) the committed-choice guard runs."""
    from llmcreativity.context import variable
    from llmcreativity.hashing import sha256_file
    from llmcreativity.judgelab import choice as choice_module
    from llmcreativity.judgelab import lab

    ids = list(range(40))
    digest = stories.splits_sha256(stories.outer_splits(ids))
    committed = write_choice(Choice("rubric", "committed protocol", stories.CHOICE_RULE, digest), tmp_path)
    monkeypatch.setattr(choice_module, "REPO_ROOT", tmp_path)  # where `choice_path` finds it
    asked_git: list[str] = []

    def guarded(job: str, root: Path | None = None):
        asked_git.append(job)
        raise UncommittedChoice("uncommitted changes")

    monkeypatch.setattr(lab, "committed_choice", guarded)
    stage = type("Stage", (), {"judge_validity": ({"choice_sha256": sha256_file(committed), "choice_commit": "17a5"},)})
    record = type("Record", (), {"stages": {"judge_lab": stage}})
    monkeypatch.setattr("llmcreativity.record_file.read_record", lambda folder: record)
    seen: list[str] = []

    def scorer(choice: Choice, heads: dict, commit: str, sha: str) -> str:
        seen.append(commit)
        return "scored"

    monkeypatch.setattr(lab, "write_json", lambda path, data: None)
    monkeypatch.setattr(lab, "to_json", lambda x: x)
    monkeypatch.setenv(variable("record"), str(tmp_path / "record"))
    assert lab.confirm_job("rubric", None, True, tmp_path, scorer, story_ids=ids) == "scored"
    assert seen == ["17a5"] and asked_git == []
    monkeypatch.delenv(variable("record"))
    with pytest.raises(UncommittedChoice):
        lab.confirm_job("rubric", None, True, tmp_path, scorer, story_ids=ids)
    assert asked_git == ["rubric"]


def test_the_ridge_path_is_scikit_learns_ridge_at_every_alpha() -> None:
    from sklearn.linear_model import Ridge

    from llmcreativity.judgelab.heads import ridge_path

    rng = np.random.default_rng(0)
    for rows, cols in [(40, 8), (8, 40)]:  # both sides of the Gram matrix
        z = rng.normal(size=(rows, cols))
        z -= z.mean(0)
        y = rng.normal(size=rows)
        w, b = ridge_path(z, y, [0.5, 5.0])
        for k, alpha in enumerate([0.5, 5.0]):
            ref = Ridge(alpha=alpha).fit(z, y)
            assert np.allclose(w[:, k], ref.coef_, atol=1e-10) and b[k] == pytest.approx(ref.intercept_)


class _FixedEmbedder:
    """Unit vectors looked up by text, standing in for a sentence embedder."""

    identity = "fixed"

    def __init__(self, vectors: dict[str, np.ndarray]):
        self.vectors = vectors
        self.dim = len(next(iter(vectors.values())))

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts]).astype(np.float32)


def test_the_fast_baseline_partition_is_the_projects_embedding_judge() -> None:
    from llmcreativity.entropy.clustering import cluster_by_bidirectional_entailment
    from llmcreativity.entropy.entailment import EmbeddingSimilarityJudge

    rng = np.random.default_rng(4)
    centres = rng.normal(size=(5, 12))
    texts = [f"idea {i}" for i in range(60)] + ["idea 3 "]  # a repeated text shares its cluster
    v = centres[rng.integers(0, 5, 61)] + rng.normal(scale=0.6, size=(61, 12))
    v[-1] = v[3]
    v = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
    embedder = _FixedEmbedder(dict(zip(texts, v, strict=True)))
    cosine = (v.astype(np.float64) @ v.T.astype(np.float64))
    for t in (0.3, 0.5, 0.7):
        slow = cluster_by_bidirectional_entailment(texts, EmbeddingSimilarityJudge(embedder, threshold=t), batch_size=8)
        assert list(equivalence.greedy_partition(texts, cosine, t)) == list(slow.ids)


def test_the_overlap_matrix_counts_shared_content_words() -> None:
    jac = equivalence.jaccard_matrix(["use it as a doorstop", "a heavy doorstop", "plant pot", "the of"])
    assert jac[0, 1] == pytest.approx(1 / 2) and jac[0, 2] == 0.0 and jac[3, 3] == 1.0 and jac[2, 3] == 0.0
    assert np.allclose(jac, jac.T)


def test_your_own_items_are_checked_before_any_model_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from llmcreativity.judgelab import score

    def no_model(*args: object, **kwargs: object) -> None:
        raise AssertionError("a model was loaded before the input was checked")

    monkeypatch.setattr("llmcreativity.llm.local_models.get_embedder", no_model)
    cases = {"empty.jsonl": ("\n\n", "holds no item"), "bad.jsonl": ('{"text": "a"}\nnot json\n', "line 2 is not JSON"),
             "list.jsonl": ('["a"]\n', "not an object"), "field.jsonl": ('{"txt": "a"}\n', "'text' is missing"),
             "blank.jsonl": ('{"text": "  "}\n', "'text' is empty")}
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(score.ItemsError, match=message):
            score.score_file("entailment", tmp_path / name, tmp_path / "out.jsonl")
    with pytest.raises(score.ItemsError, match="no such file"):
        score.read_items(tmp_path / "missing.jsonl", "entailment")
    with pytest.raises(ValueError, match="not a judging job"):
        score.read_items(tmp_path / "empty.jsonl", "creativity")


def test_a_job_without_a_confirmed_judge_is_refused(tmp_path: Path) -> None:
    from llmcreativity.judgelab import score
    from llmcreativity.record_file import write_record
    from record_helpers import record_of, recorded_stage

    failed = {"kind": "rubric", "judge": "r", "statistic": "rho", "estimate": 0.1, "low": -0.1, "high": 0.3, "n": 96,
              "stage": "judge_lab", "run_id": "x"}
    write_record(tmp_path, record_of("x", judge_lab=recorded_stage(judge_validity=(failed,))))
    with pytest.raises(score.ItemsError, match=r"'rubric' \(story quality\) has no confirmed judge: its judge failed"):
        score.confirmed_judge("rubric", tmp_path)
    with pytest.raises(score.ItemsError, match="has not confirmed one"):
        score.confirmed_judge("convergent", tmp_path)


def test_the_confirmed_equivalence_judge_clusters_your_ideas(tmp_path: Path) -> None:
    from llmcreativity.judgelab import score

    rows = ["use it as a doorstop", "prop a door open with it", "a doorstop", "plant flowers in it",
            "use it as a flower pot", "throw it at a burglar"]
    path = tmp_path / "ideas.jsonl"
    path.write_text("".join(f'{{"text": "{t}", "group": "shoe"}}\n' for t in rows) + '{"text": "alone"}\n')
    out = score.score_file("entailment", path, tmp_path / "out.jsonl")
    import json as js

    answered = [js.loads(line) for line in out.read_text().splitlines()]
    assert [a["text"] for a in answered] == [*rows, "alone"] and answered[-1]["cluster"] == 0
    clusters = [a["cluster"] for a in answered[:6]]
    assert len(set(clusters)) < 6 and clusters[0] != clusters[5]


def test_the_language_model_reads_few_solutions_of_each_problem_in_one_part_only() -> None:
    items, _ = _solutions(n_problems=60, per=12)
    split = split_groups("convergent", items["group"], test_share=0.3, seed=1)
    dev = solutions.lm_rows(items, split, "dev", per_problem=3, cap=100)
    test = solutions.lm_rows(items, split, "test", per_problem=5)
    assert dev.sum() == 100 and not (dev & test).any()
    assert set(items["group"][dev]) <= set(split.dev) and set(items["group"][test]) == set(split.test)
    assert items["group"][dev].value_counts().max() == 3 and items["group"][test].value_counts().max() == 5
    again = solutions.lm_rows(items, split, "dev", per_problem=3, cap=100)
    assert (again == dev).all()  # a function of the split and the seed alone


def test_every_protocol_is_compared_on_the_items_the_language_model_read() -> None:
    """A protocol read on fewer rows (NaN elsewhere) restricts the comparison to those rows for every protocol; an
    unfitted p(yes) is scored by its feature as is, a checklist head out of fold, and both join the panel."""
    items, features = _solutions(n_problems=60, per=12, signal=1.5)
    split = split_groups("convergent", items["group"], test_share=0.3, seed=1)
    rows = solutions.lm_rows(items, split, "dev", per_problem=3, cap=100)
    x = np.full((len(items), 2), np.nan)
    x[rows] = np.column_stack([items["label"][rows] * 2.0 - 1.0 + np.random.default_rng(3).normal(size=rows.sum()),
                               np.random.default_rng(4).normal(size=rows.sum())])
    table = {**features, "checklist (lm)": (x, ["q1", "q2"]), "p(yes) (lm)": (x[:, [0]], ["direct"])}
    dev = solutions.develop(items, split, table, n_resamples=200)
    assert dev.rows.sum() == 100 and (dev.rows == rows).all()
    shown = dev.table.set_index("protocol")
    assert set(shown["items"]) == {100}
    assert set(shown.index) >= {"p(yes) (lm)", "checklist (lm)", solutions.LM_PANEL}
    assert np.allclose(dev.scores["p(yes) (lm)"], x[rows, 0])  # unfitted: its feature itself
    assert shown.loc["p(yes) (lm)", "auc_low"] > 0.5
    assert solutions.needs_lm(solutions.LM_PANEL, table) and not solutions.needs_lm("embedding head (toy)", table)
    assert solutions.fit_protocol(items, split, table, "p(yes) (lm)") == {}
    assert set(solutions.fit_protocol(items, split, table, solutions.LM_PANEL)) == {"embedding head (toy)",
                                                                                   "checklist (lm)"}


def test_the_confirmed_equivalence_judge_clusters_semantic_entropy_samples_and_names_their_claims() -> None:
    """Loaded from the published record and its committed choice, it partitions a step's samples for
    `cluster_by_bidirectional_entailment` (no pair asked), decides B1-B4, names their claims, and is refused as
    B4's similarity embedder when it clusters with that embedder."""
    from llmcreativity.entropy.clustering import cluster_by_bidirectional_entailment
    from llmcreativity.entropy.entailment import EmbeddingSimilarityJudge
    from llmcreativity.entropy.entropy_claims import check_similarity_embedder, claims_judge, is_entailment
    from llmcreativity.judgelab import score
    from llmcreativity.llm.scripted import ScriptedEmbedder

    loaded: list[str] = []

    def load(name: str) -> ScriptedEmbedder:
        loaded.append(name)
        return ScriptedEmbedder()

    judge = score.confirmed_equivalence_judge(load)
    assert loaded == ["all-minilm-l6-v2"] and judge.identity.startswith("entailment: cosine average")
    texts = ["tie the rope to the tree", "tie the rope to the tree", "boil water in the can", "tie rope to tree"]
    c = cluster_by_bidirectional_entailment(texts, judge)
    assert c.ids[0] == c.ids[1] == 0 and c.ids[2] != 0 and c.judge_calls == 0
    assert c.representatives == tuple(c.ids.index(k) for k in range(c.n_clusters))
    assert is_entailment(judge) and claims_judge(judge) == judge.identity
    assert claims_judge(EmbeddingSimilarityJudge(ScriptedEmbedder())) == ""
    with pytest.raises(ValueError, match="also clusters the candidates"):
        check_similarity_embedder(judge, judge.embedder)
    with pytest.raises(TypeError, match="partition"):
        judge.entails([("a", "b")])
