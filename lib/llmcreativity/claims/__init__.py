"""The claims' shared vocabulary, below every domain: the claim table (`claim_table`: each claim of both papers, its
figure, unit, estimator, minimum sample and gating judge), a committed registration's terms as they are read back
(`registration`), how a claim's minimum sample is sized from a pilot (`sizing`), and each judge's recorded agreement
with human labels and the gate it sets (`judge_validity`).
It imports no domain and nothing of `pipeline`, so a domain that decides a claim, or measures a judge, reads and
records here without importing the layer that runs and records the stages (`tests/core/test_layering.py`).
"""
