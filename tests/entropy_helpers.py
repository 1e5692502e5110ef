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


class GreedyAwareBackend:
    """A ScriptedBackend that answers temperature-0 calls with `greedy(prompt)` and sampled calls with
    `responder(prompt, i)`; keeps every config it was called with in `configs`."""

    def __init__(self, responder, greedy):
        from llmcreativity.llm import ScriptedBackend

        self.sampled = ScriptedBackend(responder)
        self.greedy = ScriptedBackend(lambda p, i: greedy(p))
        self.identity = "greedy-aware-scripted"
        self.configs = []

    def generate(self, prompts, config):
        self.configs.append(config)
        return (self.greedy if config.temperature == 0 else self.sampled).generate(prompts, config)

    def score(self, context, continuation):
        return self.sampled.score(context, continuation)

    def answer_probs(self, prompt, answers):
        return self.sampled.answer_probs(prompt, answers)

    def count_tokens(self, text):
        return self.sampled.count_tokens(text)
