"""Statistics shared by the stages: bootstrap confidence intervals, paired bootstrap differences, Wilson intervals
of a share, Holm's correction and agreement measures."""

from .agreement import (
    IccResult,
    accuracy,
    agreement_with_raters,
    cohen_kappa,
    confusion_table,
    icc,
    rater_ceiling,
    spearman,
)
from .bootstrap import (
    ConfidenceInterval,
    DifferenceTest,
    bootstrap_ci,
    bootstrap_difference,
    bootstrap_draws,
    distinct_bootstrap_ci,
)
from .holm import holm_table
from .proportion import wilson_ci

__all__ = [
    "ConfidenceInterval",
    "DifferenceTest",
    "IccResult",
    "accuracy",
    "agreement_with_raters",
    "bootstrap_ci",
    "bootstrap_difference",
    "bootstrap_draws",
    "cohen_kappa",
    "confusion_table",
    "distinct_bootstrap_ci",
    "holm_table",
    "icc",
    "rater_ceiling",
    "spearman",
    "wilson_ci",
]
