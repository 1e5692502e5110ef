import pytest

from llmcreativity.data.hanna import CRITERIA, load_hanna_human


@pytest.fixture(scope="module")
def hanna():
    return load_hanna_human()


def test_hanna_has_96_stories_rated_by_three_raters_on_six_criteria(hanna):
    assert len(hanna.stories) == 96 and hanna.stories["story"].str.len().min() > 100
    assert len(hanna.ratings) == 96 * 3 * 6
    assert hanna.ratings["score"].between(1, 5).all()


def test_mean_scores_match_the_published_per_criterion_means(hanna):
    # the Human row's "Relevance" column starts 3.667, 5.0, 4.667 (means of the three raters)
    assert hanna.mean_scores()["Relevance"].iloc[:3].tolist() == pytest.approx([11 / 3, 5.0, 14 / 3])


def test_wide_gives_one_column_per_rater(hanna):
    w = hanna.wide("Coherence")
    assert w.shape == (96, 3) and list(w.columns) == ["rater 1", "rater 2", "rater 3"]


def test_wide_rejects_unknown_criterion_listing_choices(hanna):
    with pytest.raises(ValueError, match="Relevance"):
        hanna.wide("Fun")
    assert len(CRITERIA) == 6
