"""Test double for the entropy tests: an entailment judge that compares first words."""


class FirstWordJudge:
    """Two texts mean the same when their first words match (case-insensitively with `ignore_case`); counts its
    calls."""

    identity = "first-word"

    def __init__(self, *, ignore_case: bool = False):
        self.calls = 0
        self.ignore_case = ignore_case

    def entails(self, pairs, context=None):
        self.calls += len(pairs)
        norm = str.lower if self.ignore_case else str
        return [norm(a.split()[0]) == norm(b.split()[0]) for a, b in pairs]
