import pytest

from llmcreativity.data.macgyver import load_benchmark, stratified_sample


@pytest.fixture(scope="module")
def bench():
    return load_benchmark()


def test_benchmark_has_every_labelled_solution_with_its_problem(bench):
    assert len(bench) == 4770 and bench["problem_id"].nunique() == 323
    assert bench["problem"].notna().all() and bench["item_id"].is_unique


def test_valid_means_annotation_starts_with_correct(bench):
    assert (bench["valid"] == bench["annotation"].str.startswith("correct_")).all()
    assert set(bench.loc[bench["valid"], "annotation"]) == {"correct_efficient", "correct_inefficient",
                                                            "correct_unsolvable"}


def test_stratified_sample_balances_labels_across_distinct_problems(bench):
    s = stratified_sample(bench, 11, seed=1)
    assert len(s) == 11 and s["problem_id"].is_unique
    assert sorted(s["valid"].value_counts().tolist()) == [5, 6]


def test_stratified_sample_is_reproducible(bench):
    first, again = (stratified_sample(bench, 8, seed=4)["item_id"].tolist() for _ in range(2))
    assert first == again


def test_missing_folder_error_says_how_to_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="LLMCREATIVITY_DATA"):
        load_benchmark(tmp_path)


def test_stratified_sample_rejects_unknown_column(bench):
    with pytest.raises(ValueError, match="not a column"):
        stratified_sample(bench, 4, by="nope")
