"""The judge laboratory: for each judging job (solution validity, semantic equivalence, story quality), protocols
compared on human labels of a development split, one chosen and committed, then confirmed on a split it never saw.

Modules: `jobs` (the three jobs and their gating statistics), `splits` (development / test by group, stored with a
hash), `features` (what the fitted judges read), `heads` (small linear judges, saved and loaded), `binary`
(AUC and kappa with cluster-bootstrap intervals), `solutions`, `equivalence` and `stories` (each job's protocols,
development comparison and choice rule), `choice` (the committed choice and the check that it was committed).
"""
