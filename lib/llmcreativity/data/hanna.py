"""HANNA story evaluation (dig-team/hanna-benchmark-asg, MIT): 96 human stories rated by three humans on six criteria.

Expected files under `data_dir()/hanna/`: `hanna_metric_scores_llm.csv` (one row per system; the
row "Human" holds, in columns "Human {1,2,3} {RE,CH,EM,SU,EG,CX}", Python-list strings of the 96
per-story 1-5 scores in prompt order) and `hanna_llm_stories.csv` (columns Prompt and Human give
the 96 prompts and human-written stories, repeated every 96 rows).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..paths import data_dir, require_file

CRITERIA: dict[str, str] = {
    "RE": "Relevance", "CH": "Coherence", "EM": "Empathy", "SU": "Surprise", "EG": "Engagement", "CX": "Complexity",
}
"""HANNA's six criteria: column code -> name."""

RATERS: tuple[int, ...] = (1, 2, 3)
"""The three human raters of each story."""

N_STORIES = 96
"""Human-written stories with ratings."""

SOURCE = "https://github.com/dig-team/hanna-benchmark-asg (hanna_metric_scores_llm.csv, hanna_llm_stories.csv)"


@dataclass(frozen=True)
class HannaHuman:
    """The 96 human-written HANNA stories and their human ratings."""

    stories: pd.DataFrame
    """One row per story: story_id (0-95, the prompt index), prompt, story."""
    ratings: pd.DataFrame
    """Long table: story_id, criterion (name, e.g. "Coherence"), rater (1-3), score (1-5)."""

    def wide(self, criterion: str) -> pd.DataFrame:
        """Scores of one criterion as story_id x rater (columns "rater 1".."rater 3")."""
        if criterion not in CRITERIA.values():
            raise ValueError(f"criterion={criterion!r}: choose one of {list(CRITERIA.values())}")
        sub = self.ratings[self.ratings["criterion"] == criterion]
        table = sub.pivot(index="story_id", columns="rater", values="score")
        table.columns = [f"rater {r}" for r in table.columns]
        return table

    def mean_scores(self) -> pd.DataFrame:
        """Mean of the three raters per story (rows) and criterion (columns)."""
        return self.ratings.pivot_table(index="story_id", columns="criterion", values="score",
                                        aggfunc="mean")[list(CRITERIA.values())]


def load_hanna_human(path: str | Path | None = None) -> HannaHuman:
    """Load the 96 human stories with each rater's 1-5 score on the six criteria."""
    folder = Path(path) if path is not None else data_dir() / "hanna"
    fix = f"download it from {SOURCE} or set LLMCREATIVITY_DATA"
    scores = pd.read_csv(require_file(folder / "hanna_metric_scores_llm.csv", "HANNA scores", fix))
    texts = pd.read_csv(require_file(folder / "hanna_llm_stories.csv", "HANNA stories", fix))
    human = scores[scores["Model"] == "Human"]
    if len(human) != 1:
        raise ValueError(f"hanna_metric_scores_llm.csv has {len(human)} rows with Model == 'Human', expected 1")
    row = human.iloc[0]
    records = []
    for code, name in CRITERIA.items():
        for r in RATERS:
            values = ast.literal_eval(row[f"Human {r} {code}"])
            if len(values) != N_STORIES:
                raise ValueError(f"column 'Human {r} {code}' has {len(values)} values, expected {N_STORIES}")
            records += [{"story_id": i, "criterion": name, "rater": r, "score": float(v)} for i, v in enumerate(values)]
    stories = texts.iloc[:N_STORIES][["Prompt", "Human"]].rename(columns={"Prompt": "prompt", "Human": "story"})
    stories.insert(0, "story_id", range(N_STORIES))
    return HannaHuman(stories.reset_index(drop=True), pd.DataFrame(records))
