"""The claims' shared vocabulary, below every domain: the verdict rules and the `Verdict` they return (`verdicts`),
what a claim is (`claim_spec`: its paper, figure, unit,
estimator, minimum sample and gating judge), the registry each domain declares the claims it decides in, beside the
code that decides them, and reads its own claims' minimums from (`registry`; the complete table, which imports every
domain, is `pipeline.claim_table`), a committed registration's terms as they are read back (`registration`), how a
claim's minimum sample is sized from a pilot (`sizing`), and each judge's recorded agreement with human labels and
the gate it sets (`judge_validity`).
It imports no domain and nothing of `pipeline`, so a domain that decides a claim, or measures a judge, reads and
records here without importing the layer that runs and records the stages (`tests/core/test_layering.py`).
"""
