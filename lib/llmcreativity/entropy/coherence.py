"""Coherence of the sampled candidates, and semantic entropy without the incoherent ones.

At a high temperature a small model's candidates stop being text: words of other scripts, fused or invented words,
strings of unrelated words. Every one of them is a meaning cluster of its own, so SE "rises" because the text falls
apart. Two rules say which candidates read as text, with no model call (both read what the chains already hold):

* the **text rule** (`text_verdict`): every character is Latin script, punctuation or a digit; at least
  `MIN_WORD_SHARE` of the words are word-shaped (`word_shaped`); and a candidate of `FUNCTION_WORDS_FROM` words or more
  has at least `MIN_FUNCTION_SHARE` of English function words (`FUNCTION_WORDS`), as English sentences do;
* the **log-probability rule** (`logprob_coherent`): the generating model's own mean token log-probability,
  (1/L) sum_j log p(x_j | x_<j), reaches `LOGPROB_THRESHOLD`. It is not independent of SE: the length-normalized SE
  weighs each candidate by exactly this mean, and the probability-weighted SE by its sum.

`PRIMARY_RULE` names the rule the chapter reads. An empty candidate is neither coherent nor incoherent ("empty"): it
is no text, and the clustering already puts empty candidates in a cluster of their own.

SE without the incoherent candidates (`restricted_se`) keeps each step's recorded cluster ids and token
log-probabilities and drops the incoherent candidates: nothing is embedded or clustered again.
"""

from __future__ import annotations

import math
import re
import string
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Literal

import numpy as np
import pandas as pd

from .analysis import _distinct_rule
from .chains import Candidate, Chain, StepResult
from .se_estimators import (
    discrete_semantic_entropy,
    length_normalized_semantic_entropy,
    probability_weighted_semantic_entropy,
)

CoherenceRule = Literal["text", "logprob"]
"""Which rule says a candidate is coherent: the text rule or the generating model's mean token log-probability."""
COHERENCE_RULES: tuple[str, ...] = ("text", "logprob")
"""The values of `CoherenceRule`."""
PRIMARY_RULE: CoherenceRule = "text"
"""The rule the chapter reads: it is independent of the SE weights, and each of its decisions can be checked by
reading the candidate. It is lenient (a string of real English words passes), so its coherent share is an upper
bound."""

MIN_WORD_SHARE = 0.9
"""Least share of a candidate's words that must be word-shaped (`word_shaped`)."""
MIN_FUNCTION_SHARE = 0.2
"""Least share of function words (`FUNCTION_WORDS`) in a candidate of `FUNCTION_WORDS_FROM` words or more."""
FUNCTION_WORDS_FROM = 6
"""Shortest candidate, in words, held to `MIN_FUNCTION_SHARE` (a short step such as "Define the problem" may have
none)."""
MAX_WORD_LETTERS = 15
"""Longest word-shaped word, in letters (longer ones are fused words: "UselargeLMFreEglasses")."""
LOGPROB_THRESHOLD = -4.0
"""Least mean token log-probability (nats) of a coherent candidate under the log-probability rule: a typical token
the model gives at least e^-4, about 2 %."""

FUNCTION_WORDS = frozenset("""
a an the and or but nor if then so yet to of in on at by for with from into onto over under about after before
between through during without within against along around across behind below above near as than that this these
those it its is are was were be been being am do does did done have has had can could will would shall should may
might must not no yes you your yours we our us i me my he him his she her they them their there here what which who
whom whose when where why how all any each every some more most other such up out off down one two using while until
because also just only very too both either neither itself yourself
""".split())
"""English function words: articles, pronouns, prepositions, conjunctions, auxiliaries (the text rule's list)."""

_STRIP = string.punctuation + "“”‘’…—–«»"
_NUMBER = re.compile(r"\d[\d.,:/%x-]*[A-Za-z]{0,3}")
_LATIN_END = 0x24F  # the end of Latin Extended-B: letters beyond it are of another script

TextVerdict = Literal["coherent", "empty", "non-Latin script", "non-word tokens", "few function words"]
"""What the text rule says of a candidate: coherent, empty, or the first test it fails."""


def _cased(part: str) -> bool:
    """A word's casing: lower, Title, an acronym of up to 6 capitals (with a plural s), or one inner capital (WiFi)."""
    inner = sum(c.isupper() for c in part[1:])
    return (part.islower() or part.istitle() or (part.isupper() and len(part) <= 6)
            or (part[:-1].isupper() and part[-1] == "s" and len(part) <= 7)
            or (inner == 1 and part[-1].islower()))


def word_shaped(word: str) -> bool:
    """True for a number, or for letters of the Latin script, at most `MAX_WORD_LETTERS` of them, in parts joined by
    a hyphen or an apostrophe, each part cased as a word is (`_cased`).

    >>> [word_shaped(w) for w in ["step-by-step", "WiFi", "YSOs", "10cm", "UselargeLMFreE", "close(healthy"]]
    [True, True, True, True, False, False]
    """
    if _NUMBER.fullmatch(word):
        return True
    parts = re.split(r"[-']", word)
    letters = sum(len(p) for p in parts)
    return (0 < letters <= MAX_WORD_LETTERS
            and all(p.isalpha() and all(ord(c) <= _LATIN_END for c in p) and _cased(p) for p in parts))


def _foreign(ch: str) -> bool:
    """A character of another script: beyond Latin-1, and neither a Latin letter, punctuation nor a space."""
    if ord(ch) <= 0xFF:
        return False
    kind = unicodedata.category(ch)
    return not ((kind.startswith("L") and ord(ch) <= _LATIN_END) or kind.startswith(("P", "Z")))


def text_features(text: str) -> dict[str, float]:
    """The text rule's measures of `text`: `words` (whitespace-separated, surrounding punctuation stripped, pure
    punctuation dropped), `word_share` (share word-shaped), `function_share` (share in `FUNCTION_WORDS`) and
    `foreign` (1.0 when a character is of another script, else 0.0). An empty text has no words and NaN shares.

    >>> text_features("Remove the stain with the towel.")
    {'words': 6, 'word_share': 1.0, 'function_share': 0.5, 'foreign': 0.0}
    """
    words = [w for w in (t.strip(_STRIP) for t in text.split()) if w]
    n = len(words)
    return {"words": n,
            "word_share": sum(map(word_shaped, words)) / n if n else math.nan,
            "function_share": sum(w.lower() in FUNCTION_WORDS for w in words) / n if n else math.nan,
            "foreign": float(any(_foreign(ch) for ch in text))}


def text_verdict(text: str) -> TextVerdict:
    """The text rule on one candidate: "empty" for no text, else the first test it fails, else "coherent".

    >>> text_verdict("Soak the towel in the mineral water.")
    'coherent'
    >>> text_verdict("Shape theплач闻 piece afin ministry")
    'non-Latin script'
    >>> text_verdict("Importer npwiki brochure Linkwire girter Stamp")
    'few function words'
    """
    if not text.strip():
        return "empty"
    f = text_features(text)
    if f["foreign"]:
        return "non-Latin script"
    if not f["words"] or f["word_share"] < MIN_WORD_SHARE:
        return "non-word tokens"
    if f["words"] >= FUNCTION_WORDS_FROM and f["function_share"] < MIN_FUNCTION_SHARE:
        return "few function words"
    return "coherent"


def mean_token_logprob(candidate: Candidate) -> float:
    """(1/L) sum_j log p(x_j | x_<j) of the candidate's L tokens (nats); NaN for a candidate with no tokens."""
    return float(np.mean(candidate.logprobs)) if candidate.logprobs else math.nan


def logprob_coherent(candidate: Candidate, threshold: float = LOGPROB_THRESHOLD) -> bool | None:
    """The log-probability rule: mean token log-probability >= `threshold`; None for an empty candidate."""
    if not candidate.text.strip():
        return None
    return bool(mean_token_logprob(candidate) >= threshold)


def _check_rule(rule: str) -> None:
    if rule not in COHERENCE_RULES:
        raise ValueError(f"rule={rule!r}: use 'text' (the text rule) or 'logprob' (the generating model's mean token "
                         "log-probability)")


def is_incoherent(candidate: Candidate, rule: CoherenceRule = PRIMARY_RULE) -> bool:
    """True when `rule` calls the candidate incoherent (an empty candidate is not: it is no text)."""
    _check_rule(rule)
    if rule == "text":
        return text_verdict(candidate.text) not in ("coherent", "empty")
    return logprob_coherent(candidate) is False


SE_STATISTICS = ("n_clusters", "se_discrete", "se_probability", "se_length_normalized", "se_probability_distinct",
                 "se_length_normalized_distinct")
"""The step statistics the chapter computes (`analysis.step_table`), recomputed over the candidates kept."""


def restricted_se(step: StepResult, keep: Collection[int]) -> dict[str, float]:
    """`SE_STATISTICS` over the candidates of `step` whose indices are in `keep`, with their recorded cluster ids and
    token log-probabilities (each estimator of `se_estimators` on the subset; nothing clustered again). With nothing
    kept every statistic is NaN; with no token among those kept the weighted ones are.
    """
    index = sorted(set(keep))
    if not index:
        return {s: math.nan for s in SE_STATISTICS}
    sub = replace(step, candidates=tuple(step.candidates[i] for i in index),
                  cluster_ids=tuple(step.cluster_ids[i] for i in index))
    ids, cands = list(sub.cluster_ids), sub.candidates
    texts = [c.text for c in cands]
    weighable = any(c.logprobs for c in cands)
    sums, tokens = [c.sum_logprob for c in cands], [c.logprobs for c in cands]
    return {"n_clusters": float(len(set(ids))), "se_discrete": discrete_semantic_entropy(ids),
            "se_probability": probability_weighted_semantic_entropy(ids, sums, texts) if weighable else math.nan,
            "se_length_normalized": (length_normalized_semantic_entropy(ids, tokens, texts) if weighable
                                     else math.nan),
            "se_probability_distinct": _distinct_rule(sub, probability_weighted_semantic_entropy, sums),
            "se_length_normalized_distinct": _distinct_rule(sub, length_normalized_semantic_entropy, tokens)}


def candidate_table(chains: Sequence[Chain], names: Mapping[str, str]) -> pd.DataFrame:
    """One row per sampled candidate: its chain, model (`names`: identity -> name), domain, problem, temperature,
    step and index, text, judge's cluster, tokens, mean token log-probability, the text rule's measures and verdict,
    and whether each rule calls it coherent (`coherent_text`, `coherent_logprob`; NA for an empty candidate)."""
    rows = []
    for ch in chains:
        for s in ch.steps:
            for i, (c, cluster) in enumerate(zip(s.candidates, s.cluster_ids, strict=True)):
                verdict = text_verdict(c.text)
                by_logprob = logprob_coherent(c)
                rows.append({"chain": ch.id, "model_name": names.get(ch.model, ch.model), "domain": ch.domain,
                             "problem_id": ch.problem_id, "temperature": ch.settings.sampling.temperature,
                             "step": s.index, "candidate": i, "text": c.text, "cluster": cluster,
                             "tokens": len(c.logprobs), "mean_logprob": mean_token_logprob(c),
                             **text_features(c.text), "text_verdict": verdict,
                             "coherent_text": pd.NA if verdict == "empty" else verdict == "coherent",
                             "coherent_logprob": pd.NA if by_logprob is None else by_logprob})
    out = pd.DataFrame(rows)
    return out.astype({"coherent_text": "boolean", "coherent_logprob": "boolean"}) if rows else out


def coherent_step_table(chains: Sequence[Chain], names: Mapping[str, str],
                        rule: CoherenceRule = PRIMARY_RULE) -> pd.DataFrame:
    """One row per step: its keys, how many candidates each rule calls coherent (and how many are empty), how many
    `rule` keeps (all but the incoherent ones), `SE_STATISTICS` over every candidate (`<statistic>_all`, recomputed:
    equal to the recorded ones) and over those kept (`<statistic>_coherent`, `restricted_se`)."""
    _check_rule(rule)
    rows = []
    for ch in chains:
        for s in ch.steps:
            bad = {r: [i for i, c in enumerate(s.candidates) if is_incoherent(c, r)] for r in ("text", "logprob")}
            empty = sum(not c.text.strip() for c in s.candidates)
            n = len(s.candidates)
            everything = restricted_se(s, range(n))
            kept = restricted_se(s, [i for i in range(n) if i not in bad[rule]])
            rows.append({"chain": ch.id, "model_name": names.get(ch.model, ch.model), "domain": ch.domain,
                         "problem_id": ch.problem_id, "temperature": ch.settings.sampling.temperature,
                         "step": s.index, "rule": rule, "candidates": n, "empty": empty, "kept": n - len(bad[rule]),
                         "coherent_text": n - empty - len(bad["text"]),
                         "coherent_logprob": n - empty - len(bad["logprob"]),
                         **{f"{k}_all": v for k, v in everything.items()},
                         **{f"{k}_coherent": v for k, v in kept.items()}})
    return pd.DataFrame(rows)


STATISTIC_LABELS = {"n_clusters": "clusters", "se_discrete": "SE_D", "se_probability": "SE_P",
                    "se_length_normalized": "SE_LN", "se_probability_distinct": "SE_P (distinct)",
                    "se_length_normalized_distinct": "SE_LN (distinct)"}
"""How the summary names each of `SE_STATISTICS`."""


def coherence_summary(se_coherent: pd.DataFrame) -> pd.DataFrame:
    """Per (model, temperature), one column each: the share of the candidates with text that each rule calls
    coherent, the share of all candidates that are empty, then each of `SE_STATISTICS`, mean over steps, over every
    candidate ("all") and without the incoherent ones ("coherent", exploratory; steps where nothing is left are
    skipped). Rows are the measures, so the table stays narrow (`shown_summary` formats it for the page)."""
    cells = {}
    for (model, t), g in se_coherent.groupby(["model_name", "temperature"], sort=True):
        n, texts = g["candidates"].sum(), g["candidates"].sum() - g["empty"].sum()
        col = {"coherent share, text rule": g["coherent_text"].sum() / texts if texts else math.nan,
               "coherent share, log p rule": g["coherent_logprob"].sum() / texts if texts else math.nan,
               "empty share": g["empty"].sum() / n, "candidates kept per step": g["kept"].mean()}
        for s in SE_STATISTICS:
            col[f"{STATISTIC_LABELS[s]}, all"] = g[f"{s}_all"].mean()
            col[f"{STATISTIC_LABELS[s]}, coherent"] = g[f"{s}_coherent"].mean()
        cells[f"{model} T={t:g}"] = col
    return pd.DataFrame(cells)


def shown_summary(summary: pd.DataFrame) -> pd.DataFrame:
    """`coherence_summary` as the page shows it: shares as whole percentages, the rest to two decimals, each cell
    on its own (a column mixes shares, cluster counts and entropies, so no one rounding fits a column)."""
    def cell(measure: str, v: float) -> str:
        if not math.isfinite(v):
            return "–"
        return f"{v:.0%}" if "share" in measure else f"{v:.2f}"

    return pd.DataFrame({c: [cell(str(m), v) for m, v in summary[c].items()] for c in summary.columns},
                        index=summary.index)


def rule_agreement(candidates: pd.DataFrame) -> pd.DataFrame:
    """Per (model, temperature): non-empty candidates, the share each rule calls coherent, and the share on which
    the two rules agree."""
    full = candidates.dropna(subset=["coherent_text", "coherent_logprob"])
    return (full.assign(agree=full["coherent_text"] == full["coherent_logprob"])
            .groupby(["model_name", "temperature"])
            .agg(candidates=("text", "size"), text_rule=("coherent_text", "mean"),
                 logprob_rule=("coherent_logprob", "mean"), agree=("agree", "mean"))
            .astype({"text_rule": float, "logprob_rule": float, "agree": float}))


def _shorten(text: str, width: int) -> str:
    """`text` on one line, cut to `width` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[:width - 1].rstrip() + "…"


def coherence_examples(candidates: pd.DataFrame, *, per_cell: int = 4, width: int = 60,
                       seed: int = 0) -> pd.DataFrame:
    """`per_cell` non-empty candidates of each (model, temperature), drawn with `seed`, half of them from those the
    text rule calls coherent and half from the rest where both kinds are there (the other kind fills in), with the
    text rule's verdict, their mean token log-probability and the log-probability rule's verdict; texts cut to
    `width` characters."""
    full = candidates[candidates["text"].str.strip() != ""]
    picked = []
    for _, g in full.groupby(["model_name", "temperature"], sort=True):
        good, bad = g[g["text_verdict"] == "coherent"], g[g["text_verdict"] != "coherent"]
        n_good = max(per_cell - len(bad), min(len(good), (per_cell + 1) // 2))
        picked += [good.sample(min(n_good, len(good)), random_state=seed),
                   bad.sample(min(per_cell - min(n_good, len(good)), len(bad)), random_state=seed)]
    rows = pd.concat(picked) if picked else full
    return pd.DataFrame({"model": rows["model_name"], "T": rows["temperature"],
                         "candidate": rows["text"].map(lambda t: _shorten(t, width)),
                         "text rule": rows["text_verdict"], "log p / token": rows["mean_logprob"],
                         "log p rule": rows["coherent_logprob"].map({True: "coherent", False: "incoherent"})
                         }).reset_index(drop=True)


def judge_cluster_table(chains: Sequence[Chain], names: Mapping[str, str], *, per_group: int = 1,
                        per_cluster: int = 4, width: int = 60) -> pd.DataFrame:
    """How coarse the judge's clusters are: of each (model, domain), the `per_group` steps of the lowest temperature
    with the most distinct candidate texts (ties: chain order), one row per cluster with its size and up to
    `per_cluster` of its distinct texts, each cut to `width` characters."""
    columns = ["step", "cluster (size)", "distinct texts"]
    if not chains:
        return pd.DataFrame(columns=columns)
    low = min(ch.settings.sampling.temperature for ch in chains)
    groups: dict[tuple[str, str], list[tuple[Chain, StepResult]]] = {}
    for ch in chains:
        if ch.settings.sampling.temperature == low:
            groups.setdefault((ch.model, ch.domain), []).extend((ch, s) for s in ch.steps)
    rows = []
    for found in groups.values():
        found.sort(key=lambda cs: -len({c.text for c in cs[1].candidates if c.text}))
        for ch, s in found[:per_group]:
            label = f"{names.get(ch.model, ch.model)}, {ch.problem_id}, step {s.index}"
            for cluster in sorted(set(s.cluster_ids)):
                texts = list(dict.fromkeys(c.text for c, k in zip(s.candidates, s.cluster_ids, strict=True)
                                           if k == cluster))
                shown = " | ".join(_shorten(t, width) if t else "(empty)" for t in texts[:per_cluster])
                more = f" | +{len(texts) - per_cluster} more" if len(texts) > per_cluster else ""
                rows.append({"step": label, "cluster (size)": f"{cluster} ({s.cluster_ids.count(cluster)})",
                             "distinct texts": shown + more})
    return pd.DataFrame(rows, columns=columns)


def coherence_line(se_coherent: pd.DataFrame) -> str:
    """One sentence for B1 on the claims page: the share of the candidates with text that the table's rule calls
    coherent at the lowest and the highest temperature, and the rise of the mean discrete and probability-weighted SE
    with every candidate and without the incoherent ones (exploratory); "" for an empty table."""
    if se_coherent.empty:
        return ""
    rule = str(se_coherent["rule"].iloc[0])
    t = se_coherent["temperature"]
    ends = [se_coherent[t == t.min()], se_coherent[t == t.max()]]
    share = [g[f"coherent_{rule}"].sum() / max(1, g["candidates"].sum() - g["empty"].sum()) for g in ends]

    def rise(stat: str, kept: str) -> str:
        a, b = (g[f"{stat}_{kept}"].mean() for g in ends)
        return f"{a:.2f} to {b:.2f}"

    lo, hi = f"T = {t.min():g}", f"T = {t.max():g}"
    return (f"Of the candidates with text, {share[0]:.0%} are coherent at {lo} and {share[1]:.0%} at {hi} "
            f"({'the text' if rule == 'text' else 'the log-probability'} rule). The mean discrete SE rises from "
            f"{rise('se_discrete', 'all')} nats with every candidate, and from {rise('se_discrete', 'coherent')} "
            f"without the incoherent ones (a mean of {ends[0]['kept'].mean():.1f} candidates kept per step at {lo}, "
            f"{ends[1]['kept'].mean():.1f} at {hi}); the probability-weighted SE goes from "
            f"{rise('se_probability', 'all')} with every candidate and from {rise('se_probability', 'coherent')} "
            "without them (exploratory, not registered).")
