"""Decoding against repetition loops: the settings a writing pilot compares, its choice rule and the chosen one.

Every setting is a set of `GenerateConfig` decoding controls drawn by the project's own sampler
(`llm.row_sampling.next_tokens`) from each row's *generated* tokens only, never the prompt: a revision prompt
holds the writer's own draft, which a penalty on the prompt would push the revision away from. The controls apply
to every call of a writing run alike, stories and feedback (a review that loops is as broken as a story, and a
review quoting the story it reviews is not penalised, the story being in its prompt), so `WritingConfig` keeps one
sampling setup for all its agents.

The published run (`published/run`) wrote with `"none"`: temperature and nucleus alone. The claims' re-decision
switches its writing stages to `CHOSEN_DECODING` when it records again; the published record stays replayable
because its profile is not changed here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from ..llm.backend import Backend
from ..llm.generate_config import GenerateConfig
from .dataset import PromptItem
from .frameworks import SingleAgent, WritingConfig
from .writing_run import load_stories, run_writing

DECODINGS: dict[str, dict[str, Any]] = {
    "none": {},
    "no-repeat-4gram": {"no_repeat_ngram": 4},
    "penalty-1.1+4gram": {"repetition_penalty": 1.1, "no_repeat_ngram": 4},
    "min-p+freq-pres": {"min_p": 0.05, "frequency_penalty": 0.2, "presence_penalty": 0.2},
}
"""Name -> the `GenerateConfig` decoding controls of a setting, lightest first (the choice rule's tie-break):
- ``none``: no control (the published run's writers);
- ``no-repeat-4gram``: a word-piece 4-gram the row already generated is never drawn again;
- ``penalty-1.1+4gram``: that, and a multiplicative repetition penalty of 1.1 on every token the row generated;
- ``min-p+freq-pres``: a min-p floor of 0.05 and additive frequency and presence penalties of 0.2 (no ban)."""

CHOSEN_DECODING = "no-repeat-4gram"
"""The setting the writing pilot chose (`notebooks/writing_pilot.md`, recorded in `published/run`): the one the
claims' re-decision writes with. `tests/writing/test_writing_decoding.py` checks that it is a known setting; the pilot's
chapter shows the constant beside the pilot's own choice."""

CHOICE_RULE = ("lowest degenerate share of the Single Agent stories on the screen prompts (loop, echo or salad, "
               "`writing.degeneracy`); a tie goes to the lighter setting (earlier in `DECODINGS`)")
"""How the pilot chooses, stated before it runs."""


def decoding_sampling(name: str, sampling: GenerateConfig) -> GenerateConfig:
    """`sampling` with the decoding controls of setting `name` (`DECODINGS`)."""
    if name not in DECODINGS:
        raise ValueError(f"decoding {name!r} is not a known setting: use one of {', '.join(DECODINGS)} "
                         "(llmcreativity.writing.decoding.DECODINGS)")
    return sampling.merge(**DECODINGS[name])


def check_decodings(names: Sequence[str]) -> list[str]:
    """`names` validated (each known, none twice, at least one), in `DECODINGS` order."""
    unknown = [n for n in names if n not in DECODINGS]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(f"decodings {list(names)}: give known settings ({', '.join(DECODINGS)}), each once")
    return [n for n in DECODINGS if n in names]


def choose_decoding(shares: Mapping[str, float]) -> str:
    """The setting `CHOICE_RULE` chooses from each setting's degenerate share on the screen.

    >>> choose_decoding({"none": 0.6, "no-repeat-4gram": 0.1, "penalty-1.1+4gram": 0.1})
    'no-repeat-4gram'
    """
    names = check_decodings(list(shares))
    return min(names, key=lambda n: (shares[n], names.index(n)))


def screen_table(degeneracy: pd.DataFrame, seconds: Mapping[str, float]) -> pd.DataFrame:
    """Per decoding setting, from the `degeneracy.degeneracy_table` rows of its stories (a ``decoding`` column):
    stories, degenerate share with its Wilson 95 % CI, loop / echo / salad / cut shares, ended share (the model
    stopped by itself, neither truncated nor cut back), mean words, and model seconds per story (`seconds`:
    setting -> total model seconds)."""
    from ..stats.proportion import wilson_ci

    rows = []
    for name in check_decodings(list(dict.fromkeys(degeneracy["decoding"]))):
        g = degeneracy[degeneracy["decoding"] == name]
        ci = wilson_ci(int(g["degenerate"].sum()), len(g))
        rows.append({"decoding": name, "stories": len(g), "degenerate": ci.estimate, "ci_low": ci.low,
                     "ci_high": ci.high, "loop": g["loop"].mean(), "echo": g["echo"].mean(),
                     "salad": g["salad"].mean(), "ended": 1 - g["cut"].mean(), "words": g["words"].mean(),
                     "seconds_per_story": seconds.get(name, float("nan")) / len(g)})
    return pd.DataFrame(rows)


def check_pilot_prompts(published_per_category: int, screen_skip: int, screen_per_category: int,
                        confirm_skip: int) -> None:
    """Refuse prompt ranges that overlap: the screen's prompts must follow the published run's first
    `published_per_category` of each category, and the confirmation's must follow the screen's, so the setting is
    confirmed on prompts it was not chosen on."""
    if screen_skip < published_per_category:
        raise ValueError(f"screen_skip={screen_skip}: the published run wrote for the first {published_per_category} "
                         f"prompts of each category; skip at least {published_per_category}")
    if confirm_skip < screen_skip + screen_per_category:
        raise ValueError(f"confirm_skip={confirm_skip}: the screen used prompts {screen_skip}.."
                         f"{screen_skip + screen_per_category - 1} of each category; skip at least "
                         f"{screen_skip + screen_per_category} so the confirmation's prompts are new")


def save_choice(path: str | Path, table: pd.DataFrame, prompts: Sequence[str]) -> dict[str, Any]:
    """Choose from the screen's `screen_table` by `CHOICE_RULE` and write the choice to `path`: the rule, each
    setting's degenerate share, the chosen setting and the screen's prompt ids."""
    from ..jsonl import write_json

    shares = dict(zip(table["decoding"], table["degenerate"].astype(float), strict=True))
    choice = {"rule": CHOICE_RULE, "shares": shares, "chosen": choose_decoding(shares), "prompts": list(prompts),
              "controls": DECODINGS}
    write_json(path, choice)
    return choice


def run_screen(lm: Backend, items: Sequence[PromptItem], decodings: Sequence[str],
               config: Callable[[str], WritingConfig], folder: Callable[[str], Path]) -> pd.DataFrame:
    """A Single Agent story by `lm` for every prompt of `items` under every setting of `decodings`, each setting's
    run in its own `folder(name)` with `config(name)` (resumable, `run_writing`): the stories (`load_stories`) with
    a ``decoding`` column."""
    runs = [load_stories(run_writing([SingleAgent(config=config(name))], lm, items, folder(name)).stories_path)
            .assign(decoding=name) for name in check_decodings(decodings)]
    return pd.concat(runs, ignore_index=True)


LOCAL_ENGINES = ("llama.cpp:", "transformers:")
"""Identity prefixes of the engines whose sampler applies the decoding controls (`llm.row_sampling`)."""


def applicable_decodings(identity: str, names: Sequence[str]) -> tuple[list[str], list[str]]:
    """(the settings of `names` a writer with model `identity` can sample, those it cannot). A local engine applies
    every setting; an endpoint only `none`, since its server's own penalties would count other tokens (its prompt's
    among them) in another order, and the endpoint backend refuses them (`llm.openai_http`)."""
    names = check_decodings(names)
    if identity.startswith(LOCAL_ENGINES):
        return names, []
    return [n for n in names if not DECODINGS[n]], [n for n in names if DECODINGS[n]]
