"""Statistics shared by the stages: bootstrap confidence intervals and agreement measures."""

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
from .bootstrap import ConfidenceInterval, bootstrap_ci

__all__ = [
    "ConfidenceInterval",
    "IccResult",
    "accuracy",
    "agreement_with_raters",
    "bootstrap_ci",
    "cohen_kappa",
    "confusion_table",
    "icc",
    "rater_ceiling",
    "spearman",
]
