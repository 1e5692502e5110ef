"""`claims.sizing.DifferencePart`: a difference of one statistic over two paired samples (B7's rho differences),
sized from the paired bootstrap's spread."""

from __future__ import annotations

import math

import numpy as np
import pytest

from llmcreativity.claims.sizing import SMALLEST_EFFECT_RHO, DifferencePart
from llmcreativity.entropy.diversity_agreement import rank_agreement
from llmcreativity.stats.bootstrap import bootstrap_draws
from llmcreativity.stats.sample_size import n_for_mean


def _sets(noise: float, n: int = 40, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(human, SE, baseline) per set: SE tracks people within 0.2, the baseline within `noise`."""
    rng = np.random.default_rng(seed)
    human = rng.uniform(0, 1.5, n)
    return human, human + rng.normal(0, 0.2, n), human + rng.normal(0, noise, n)


def _part(human: np.ndarray, se: np.ndarray, baseline: np.ndarray, **kw) -> DifferencePart:
    return DifferencePart("rho(SE) - rho(b)", (se, human), (baseline, human), rank_agreement, **kw)


def test_the_units_needed_follow_the_bootstrap_spread_scaled_to_one_unit():
    human, se, baseline = _sets(1.0)
    size = _part(human, se, baseline, tests=4).size("pilot distance", 0.95)
    draws = (bootstrap_draws((se, human), rank_agreement, seed=0)
             - bootstrap_draws((baseline, human), rank_agreement, seed=0))
    diff = rank_agreement(se, human) - rank_agreement(baseline, human)
    assert size.statistic == pytest.approx(diff) and diff > 0
    assert size.half_width == pytest.approx(diff) and size.pilot_n == 40
    assert size.needed == n_for_mean(float(draws.std(ddof=1)) * math.sqrt(40), diff, tests=4)


def test_a_closer_race_needs_more_sets_and_the_smallest_effect_rule_fixes_the_half_width():
    clear = _part(*_sets(1.5)).size("pilot distance", 0.95)
    close = _part(*_sets(0.3)).size("pilot distance", 0.95)
    assert clear.needed is not None and close.needed is not None and close.needed > clear.needed
    fixed = _part(*_sets(0.3)).size("smallest effect", 0.95)
    assert fixed.half_width == SMALLEST_EFFECT_RHO and fixed.needed is not None and fixed.needed < close.needed


def test_too_few_units_or_an_undefined_difference_is_not_sized():
    human, se, baseline = _sets(1.0, n=2)
    assert _part(human, se, baseline).size("pilot distance", 0.95).why_not == "2 unit(s): the statistic needs 3"
    nan = np.full(10, np.nan)
    undefined = _part(nan, nan, nan).size("pilot distance", 0.95)
    assert undefined.needed is None and "undefined" in undefined.why_not
