"""Statistics shared by the stages: bootstrap confidence intervals, paired bootstrap differences, Wilson intervals
of a share, Holm's correction and agreement measures."""

from .agreement import (
    IccResult,
    accuracy,
    adjusted_rand,
    agreement_with_raters,
    cohen_kappa,
    confusion_table,
    icc,
    rater_ceiling,
    roc_auc,
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
    "adjusted_rand",
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
    "roc_auc",
    "spearman",
    "wilson_ci",
]
