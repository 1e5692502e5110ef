"""The composed sampling configs give the default run's cache keys and stored settings, literally as before.

The literals were computed on main before WritingConfig, StepwiseSettings and RubricJudge composed a
GenerateConfig; a change here would make the default book miss its call cache (or its resume files).
"""

import json

from llmcreativity.entropy import MACGYVER_PROMPT, STEP_SAMPLING, Problem, StepwiseSettings, chain_id
from llmcreativity.judges import JudgeItem
from llmcreativity.judges.rubric import SAMPLING, RubricJudge
from llmcreativity.llm import CachedBackend, GenerateConfig, ScriptedBackend, cache_key
from llmcreativity.writing import STORY_SAMPLING, LLMReview, WritingConfig, build_framework
from llmcreativity.writing.dataset import PromptItem

CHAT = [{"role": "user", "content": "Write a story."}]
BOOK_WRITING = WritingConfig(STORY_SAMPLING.merge(max_tokens=160), feedback_max_tokens=80, max_story_words=120)
"""The review and baselines notebooks' defaults (temperature 0.8, top_p 0.95, seed 0)."""
FLAT = {"temperature": 0.8, "top_p": 0.95, "story_max_tokens": 160, "feedback_max_tokens": 80,
        "max_story_words": 120, "seed": 0}


def test_writing_calls_keep_their_cache_keys():
    assert BOOK_WRITING.story_config().to_dict() == {"n": 1, "temperature": 0.8, "top_p": 0.95, "max_tokens": 160,
                                                     "stop": [], "seed": 0}
    assert cache_key("m", "generate", CHAT, BOOK_WRITING.story_config().to_dict(), 0) == \
        "365f980152430394b287777f14f2b8191433c895726c0632d8b0a6e09b763cbd"
    assert cache_key("m", "generate", CHAT, BOOK_WRITING.feedback_config().to_dict(), 0) == \
        "757be79ee5b5557bf8ad57cf96fbde424729c17cfc36b8d3c2cc0081599bd2f6"


def test_framework_settings_stored_with_stories_are_unchanged():
    assert LLMReview(config=BOOK_WRITING).settings() == {"personas": ["Humanistic", "Futuristic", "Ecological"],
                                                         "config": FLAT}
    assert build_framework("teacher", BOOK_WRITING).settings() == {
        "students": ["Humanistic", "Futuristic", "Ecological"], "teacher": "Teacher", "rounds": 1, "config": FLAT}
    assert build_framework("single", BOOK_WRITING).settings() == {"persona": "Writer", "config": FLAT}
    assert build_framework("debate", BOOK_WRITING).settings() == {"n_agents": 3, "rounds": 1, "config": FLAT}
    assert list(BOOK_WRITING.to_dict()) == list(FLAT)  # the stored JSON keeps its key order, byte for byte
    assert WritingConfig.from_dict(FLAT) == BOOK_WRITING


def test_stepwise_calls_and_chain_ids_are_unchanged():
    # the chains stored before greedy chaining appended the best sample; greedy chains get new ids
    settings = StepwiseSettings(STEP_SAMPLING.merge(n=6, temperature=0.9, max_tokens=24), step_cap=2,
                                continuation="best_sample")
    cfg = settings.generate_config()
    assert cfg.to_dict() == {"n": 6, "temperature": 0.9, "top_p": 1.0, "max_tokens": 24, "stop": ["\n"], "seed": 0}
    assert cache_key("m", "generate", "Problem: x\nStep 1:", cfg.to_dict(), 0) == \
        "27702b9181aa8e127a4d0001b6195e94321e82600bd077da74b6ec92596ac3ef"
    stored = {"n": 6, "temperature": 0.9, "top_p": 1.0, "max_tokens": 24, "step_cap": 2, "stop_fraction": 0.5,
              "seed": 0, "batched": True, "cluster_batch": 4}
    assert json.dumps(settings.to_dict()) == json.dumps(stored)  # same values in the same key order
    problem = Problem("p1", "macgyver", "Open a jar.")
    assert chain_id(problem, "m", "j", MACGYVER_PROMPT, settings) == "85453ba7ca91ea055a81"
    voted = StepwiseSettings(settings.sampling, step_cap=2, chain_end="votes")
    assert voted.to_dict() == {**stored, "continuation": "greedy"}
    # greedy chains ended by the sample votes (every greedy chain stored before the greedy end) keep their ids
    assert chain_id(problem, "m", "j", MACGYVER_PROMPT, voted) == "b4b5975564eae8244024"
    greedy = StepwiseSettings(settings.sampling, step_cap=2)  # ends by its own continuation: a new id
    assert greedy.to_dict() == {**stored, "continuation": "greedy", "chain_end": "greedy"}
    assert chain_id(problem, "m", "j", MACGYVER_PROMPT, greedy) not in {"85453ba7ca91ea055a81", "b4b5975564eae8244024"}


class ConfigRecorder(ScriptedBackend):
    """A scripted backend that keeps the plain-JSON config of every generate call."""

    def __init__(self, responder):
        super().__init__(responder)
        self.configs: list[dict] = []

    def generate(self, prompts, config):
        self.configs.append(config.to_dict())
        return super().generate(prompts, config)


def test_rubric_sampling_and_retry_configs_are_unchanged_but_for_the_logprobs_they_no_longer_ask_for():
    """Deliberately changed (issue 16): the judge reads only the reply's text, so its calls say `logprobs: false`
    (a new key field, stored only when off): the rubric calls miss the cache once; everything else is as before."""
    lm = ConfigRecorder(lambda p, i: "a tale")
    judge = RubricJudge(lm, sampling=SAMPLING.merge(n=3, temperature=0.7, seed=0), max_retries=1)
    assert judge.sampling == GenerateConfig(n=3, temperature=0.7, top_p=1.0, max_tokens=8, seed=0)
    assert cache_key("m", "generate", CHAT, judge.sampling.to_dict(), 1) == \
        "37ad79212abc4d75116e32a3e1656aaa6c68b6c0efc5ee3c1c9e3480e7cc5080"
    judge.sampled(JudgeItem("s", "A prompt.", "A story."))
    retry_of_repeat_2 = {"n": 1, "temperature": 0.7, "top_p": 1.0, "max_tokens": 8, "stop": [], "seed": 1002,
                         "logprobs": False}
    assert lm.configs[0] == {**judge.sampling.to_dict(), "logprobs": False} and retry_of_repeat_2 in lm.configs


def test_only_the_semantic_entropy_sampler_asks_for_generation_logprobs():
    """What reaches the backend: writers and judges read text only (`logprobs` off, no tokens come back); the
    step-wise sampler asks for them even when its sampling config says otherwise (its estimators need them)."""
    from llmcreativity.entropy.stepwise import sample_candidates

    lm = ConfigRecorder(lambda p, i: "Story: use the rope")
    LLMReview(config=BOOK_WRITING).run(CachedBackend(lm, cache=None), PromptItem("p-00", "P", 0, "A moon that hums."))
    assert len(lm.configs) == 3 and all(c["logprobs"] is False for c in lm.configs)  # drafts, reviews, revisions
    lm.configs.clear()
    settings = StepwiseSettings(STEP_SAMPLING.merge(n=2, logprobs=False), step_cap=1)
    (first, _) = sample_candidates(lm, "Problem: x\nStep 1:", settings, MACGYVER_PROMPT)
    assert "logprobs" not in lm.configs[0] and first.logprobs == (-1.0,) * 4  # "Story: use the rope"


def test_local_identity_names_the_dtype_and_the_sampler():
    """Deliberately changed with the row-seeded sampler and the per-machine dtype (issue 15).

    Before: "transformers:<model>:float32" for every default call. Now the identity ends in ":row-seeded", so
    no sample drawn by the old one-seed-per-batch sampler is ever read back, and the default dtype is "auto":
    bfloat16 on a CPU with native bfloat16, float32 elsewhere; the resolved dtype is in the identity, so a
    bfloat16 answer never serves a float32 call. The default run's local calls miss the cache once.
    """
    from llmcreativity.llm import get_backend
    from llmcreativity.llm.device import resolve_dtype
    from llmcreativity.llm.local_models import DeferredLocalBackend

    assert DeferredLocalBackend("qwen2.5-coder-0.5b", "bfloat16", 4).identity == \
        "transformers:qwen2.5-coder-0.5b:bfloat16:row-seeded"
    assert DeferredLocalBackend("qwen2.5-coder-0.5b", "float32", 4).identity == \
        "transformers:qwen2.5-coder-0.5b:float32:row-seeded"
    assert get_backend("qwen2.5-coder-0.5b", cache=None).identity == \
        f"transformers:qwen2.5-coder-0.5b:{resolve_dtype('auto')}:row-seeded"
    assert cache_key("transformers:qwen2.5-coder-0.5b:bfloat16:row-seeded", "answer_probs", CHAT, ["0", "1"]) == \
        "5455707f2552104c766248ee02b113d8bde491e32edc300ef2acacf903bd3a75"


class PromptRecorder(ScriptedBackend):
    """A scripted backend that keeps every prompt (chat messages) of every generate call."""

    def __init__(self, responder):
        super().__init__(responder)
        self.prompts: list = []

    def generate(self, prompts, config):
        self.prompts.extend(prompts)
        return super().generate(prompts, config)


def test_the_writing_prompt_asks_for_approximately_n_words_and_its_cache_key_is_pinned():
    """Deliberately changed: writers are asked for a story of "approximately N words", the LLM Review paper's wording,
    instead of "at most N words". Every writing prompt (drafts and revisions) changed, so every writing call of a
    recorded run misses the cache once. Before: the Single Agent's draft below had key a0f37aa93f6a...; the literal
    below was recomputed after the change."""
    lm = PromptRecorder(lambda p, i: "STORY:\nA tale.")
    build_framework("single", BOOK_WRITING).run(CachedBackend(lm, cache=None),
                                                 PromptItem("p-00", "P", 0, "A moon that hums."))
    (draft,) = lm.prompts
    assert draft[-1]["content"] == ("Writing prompt: A moon that hums.\n\nWrite an original science-fiction short "
                                    "story for this prompt, approximately 120 words. Begin your reply with the line "
                                    "STORY: and then write only the story.")
    from llmcreativity.writing.frameworks.prompts import revise_instruction

    assert "approximately 120 words" in revise_instruction(120) and "at most" not in revise_instruction(120)
    assert cache_key("m", "generate", draft, BOOK_WRITING.story_config().to_dict(), 0) == \
        "5cfdc013ff18505cf29c7c887d11bfd1c30b86a1fb863097ae6ee8b4a338ee41"
