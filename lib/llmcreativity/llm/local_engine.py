"""What the two local engines (transformers and llama.cpp) share: their base class, the text side of one Hugging
Face tokenizer, and the guard that refuses to start a local language model in an endpoint-only run.

Both engines build a prompt's ids the same way (the chat template for messages, the tokenizer's own special
tokens for a plain string), cut a generated row the same way (at the first end-of-sequence id, else at the first
stop string, keeping the tokens whose decoded text lies wholly before it), and turn answer log-probabilities
s_a into p(a) = exp(s_a - logsumexp(s)) (`TeacherForcedScoring`, the base class of both). So the two engines
differ only in the numbers their models compute.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..context import kernel_context, variable
from .backend import check_prompt
from .generate_config import GenerateConfig
from .types import AnswerDistribution, Completion, FinishReason, Prompt, TokenScores, Usage

if TYPE_CHECKING:
    import torch
    from transformers import PreTrainedTokenizerBase as Tokenizer

def refuse_local_lm(model: str) -> None:
    """Raise when the context's `no_local_lm` is set: a local language model was about to be used."""
    if kernel_context().no_local_lm:
        raise RuntimeError(f"local language model {model!r} requested while ${variable('no_local_lm')} is set: every "
                           "language-model role of this run must be an endpoint (URL#MODEL or -p base_url)")


def prompt_ids(tokenizer: Tokenizer, prompt: Prompt, *, chat: bool, name: str) -> list[int]:
    """The token ids of `prompt`: chat messages through the tokenizer's chat template (with the generation
    prompt), a plain string with the tokenizer's special tokens."""
    check_prompt(prompt)
    if isinstance(prompt, list):
        if not chat:
            raise ValueError(f"model {name!r} is a base model without a chat template: pass a plain string prompt")
        text = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
        assert isinstance(text, str)  # the template's text, not its ids (tokenize=False)
        ids: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
        return ids
    ids = tokenizer(prompt)["input_ids"]
    return ids


def text_ids(tokenizer: Tokenizer, text: str) -> list[int]:
    """The token ids of `text` alone (no special tokens): a continuation, an answer, a count."""
    ids: list[int] = tokenizer(text, add_special_tokens=False)["input_ids"]
    return ids


def decode(tokenizer: Tokenizer, ids: list[int]) -> str:
    """The text of the token ids `ids` (one sequence decodes to one string)."""
    text = tokenizer.decode(ids)
    assert isinstance(text, str)
    return text


def id_tokens(tokenizer: Tokenizer, ids: list[int]) -> list[str]:
    """The tokens, as strings, of the token ids `ids` (a list of ids gives a list of tokens)."""
    tokens = tokenizer.convert_ids_to_tokens(ids)
    assert isinstance(tokens, list)
    return tokens


def hits_stop(tokenizer: Tokenizer, ids: list[int], stop: tuple[str, ...]) -> bool:
    """Whether the decoded text of the generated `ids` contains any of the stop strings."""
    if not stop:
        return False
    text = decode(tokenizer, ids)
    return any(s in text for s in stop)


def cut_completion(tokenizer: Tokenizer, eos_ids: set[int], ids: list[int], logprobs: list[float],
                   config: GenerateConfig, seconds: float) -> Completion:
    """A generated row as a Completion, cut at end-of-sequence or the first stop string (which is dropped), with its
    tokens and their log-probabilities whatever `config.logprobs` says: a local engine computes them anyway, and a
    recorded sample is checked by teacher-forcing exactly these tokens (`spot_check`)."""
    finish: FinishReason = "length"
    for j, t in enumerate(ids):
        if t in eos_ids:
            ids, logprobs, finish = ids[:j], logprobs[:j], "stop"
            break
    pieces = [decode(tokenizer, ids[: j + 1]) for j in range(len(ids))]
    text = pieces[-1] if pieces else ""
    cut = min((text.find(s) for s in config.stop if s in text), default=-1)
    if cut >= 0:
        keep = sum(1 for p in pieces if len(p) <= cut)
        ids, logprobs, text, finish = ids[:keep], logprobs[:keep], text[:cut], "stop"
    return Completion(text, id_tokens(tokenizer, ids), logprobs, finish, Usage(0, len(ids), seconds))


Reader = Callable[[list[list[int]], list[int]], tuple[list[list[float]], "torch.Tensor"]]
"""read(seqs, firsts) -> (log p(s_t | s_<t) for t >= firsts[r] per row, next-token log-probabilities per row)."""


def answer_logprob_sums(read: Reader, tokenizer: Tokenizer, ctxs: list[list[int]],
                        answers: Sequence[str]) -> list[list[float]]:
    """s[i][a] = log p(answer a | prompt i) = the sum of its tokens' teacher-forced log-probabilities.

    Answers of one token each are read off every prompt's next-token distribution (one row per prompt);
    longer answers are teacher-forced, one row per (prompt, answer).
    """
    conts = [text_ids(tokenizer, a) for a in answers]
    if not all(conts):
        raise ValueError(f"answers={list(answers)!r}: an answer has no tokens")
    if all(len(c) == 1 for c in conts):
        _, last = read(ctxs, [len(c) for c in ctxs])
        return [[float(last[i][c[0]]) for c in conts] for i in range(len(ctxs))]
    scored, _ = read([ctx + c for ctx in ctxs for c in conts], [len(ctx) for ctx in ctxs for _ in conts])
    k = len(conts)
    return [[sum(lp) for lp in scored[i * k:(i + 1) * k]] for i in range(len(ctxs))]


def answer_distribution(answers: list[str], sums: list[float], usage: Usage) -> AnswerDistribution:
    """p(a) = exp(s_a - logsumexp(s)) from the answers' log-probabilities s."""
    top = max(sums)
    logz = top + math.log(sum(math.exp(s - top) for s in sums))
    probs = {a: math.exp(s - logz) for a, s in zip(answers, sums, strict=True)}
    return AnswerDistribution(probs, dict(zip(answers, sums, strict=True)), usage)


class TeacherForcedScoring:
    """`score` and `answer_probs(_batch)` of a local engine, built on its `_prompt_ids`, `tokenizer` and `_read`.

    `_read(seqs, firsts)` returns, per sequence s, log p(s_t | s_<t) for t >= firsts[i], and the next-token
    log-probabilities after the whole sequence (both engines implement it over their shared-prefix state).
    """

    tokenizer: Tokenizer
    """The model's Hugging Face tokenizer."""
    _prompt_ids: Callable[[Prompt], list[int]]
    """The token ids of a prompt (`prompt_ids` with the engine's chat setting)."""
    _read: Reader

    def score(self, context: Prompt, continuation: str) -> TokenScores:
        """log p(x_j | context, x_<j) for the tokens x of `continuation` (teacher forcing, one read)."""
        ctx = self._prompt_ids(context)
        cont = text_ids(self.tokenizer, continuation)
        if not cont:
            raise ValueError("continuation is empty: there are no tokens to score")
        t0 = time.perf_counter()
        (lps,), _ = self._read([ctx + cont], [len(ctx)])
        usage = Usage(len(ctx) + len(cont), 0, time.perf_counter() - t0)
        return TokenScores(id_tokens(self.tokenizer, cont), lps, usage)

    def answer_probs(self, prompt: Prompt, answers: list[str]) -> AnswerDistribution:
        """p(a | prompt) for each answer a: the product of its token probabilities, renormalized over `answers`."""
        return self.answer_probs_batch([prompt], answers)[0]

    def answer_probs_batch(self, prompts: list[Prompt], answers: list[str]) -> list[AnswerDistribution]:
        """`answer_probs` of every prompt; their shared prefix is read once and the rest together."""
        ctxs = [self._prompt_ids(p) for p in prompts]
        t0 = time.perf_counter()
        sums = answer_logprob_sums(self._read, self.tokenizer, ctxs, answers)
        seconds = (time.perf_counter() - t0) / len(ctxs)
        return [answer_distribution(answers, s, Usage(len(ctx), 0, seconds)) for ctx, s in zip(ctxs, sums, strict=True)]
