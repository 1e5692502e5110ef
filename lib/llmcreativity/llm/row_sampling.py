"""One random generator per sampled row, so that a sample's random draws do not depend on its batch companions.

Row i of prompt x under config c draws every token from its own generator seeded with
seed(x, c, i) = first 8 bytes of SHA-256(repr((x, c without n and logprobs, i))). The sample count n is
left out, so sample i is the same whether n = 1 or n = 10, and so is whether log-probabilities are returned;
the batch layout (which other prompts were sampled together) never enters. The draws are then the row's own; the
logits they are drawn from are the engine's: identical whatever the history and batch on llama.cpp and on
transformers in float32, but not on transformers in bfloat16, whose numbers change with the batch's shape, so a
bfloat16 sample can part from the same row sampled alone after some tokens
(`tests/llm/test_llm_sample_independence.py`).

The decoding controls against repetition loops (`GenerateConfig.repetition_penalty`, `frequency_penalty`,
`presence_penalty`, `no_repeat_ngram`, `min_p`) are applied here, so that they keep the row's own random stream (one
draw per token from its generator, whatever the controls) and work alike on llama.cpp and transformers, greedy
decoding included. Each row's logits z are adjusted from the ids y_1..y_t that row has generated so far, never from
its prompt (a revision prompt holds the writer's own draft; penalising it would push revisions away from drafts):

    z_v <- z_v / theta if z_v > 0 else z_v * theta      for every v in {y_1..y_t}         (repetition_penalty theta)
    z_v <- z_v - alpha * count_v(y) - beta * [count_v(y) > 0]                  (frequency alpha, presence beta)
    z_v <- -inf when (y_{t-k+2}..y_t, v) is a k-gram of y                                  (no_repeat_ngram k)

then, when sampling, p = softmax(z / T) keeps the tokens with p_v >= min_p * max p, then the nucleus (`top_p`).
The controls change which token is drawn, not what is recorded: the engines record each drawn token's
log-probability under the model's raw logits, so teacher-forced scoring and the replay's spot check are unchanged.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import torch

from .generate_config import GenerateConfig


def row_seed(prompt_ids: list[int], config: GenerateConfig, index: int) -> int:
    """seed(x, c, i): the seed of sample `index` of the prompt with token ids `prompt_ids` under `config`."""
    settings = {k: v for k, v in config.to_dict().items() if k not in ("n", "logprobs")}
    blob = repr((list(prompt_ids), sorted(settings.items()), index)).encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:8], "little") & ((1 << 63) - 1)


def row_generators(prompt_ids: list[list[int]], config: GenerateConfig) -> list[torch.Generator]:
    """The generators of rows (prompt 0 sample 0, prompt 0 sample 1, ..., prompt 1 sample 0, ...)."""
    return [torch.Generator().manual_seed(row_seed(ids, config, i)) for ids in prompt_ids for i in range(config.n)]


def sampling_probs(logits: torch.Tensor, temperature: float, top_p: float) -> torch.Tensor:
    """softmax(logits / T) restricted to the nucleus: the most likely tokens whose mass first reaches top_p.

    A token is kept when the mass of the tokens more likely than it is below top_p (the most likely
    token is always kept); the kept probabilities are renormalized. Rows are independent.
    """
    return nucleus(torch.softmax(logits.float() / temperature, dim=-1), top_p)


def nucleus(probs: torch.Tensor, top_p: float) -> torch.Tensor:
    """probs restricted to the nucleus of mass top_p (see `sampling_probs`), renormalized; `probs` when top_p = 1."""
    if top_p >= 1.0:
        return probs
    sorted_p, order = probs.sort(dim=-1, descending=True)
    before = sorted_p.cumsum(dim=-1) - sorted_p
    sorted_p = torch.where(before < top_p, sorted_p, torch.zeros_like(sorted_p))
    kept = torch.zeros_like(probs).scatter(-1, order, sorted_p)
    return kept / kept.sum(dim=-1, keepdim=True)


def penalized_logits(logits: torch.Tensor, config: GenerateConfig, generated: Sequence[Sequence[int]]) -> torch.Tensor:
    """The logits after the repetition, frequency and presence penalties and the n-gram ban (module docstring),
    from row r's generated ids `generated[r]`; a new tensor (the raw logits are left as they are).

    >>> z = torch.tensor([[2.0, -1.0, 0.5]])
    >>> penalized_logits(z, GenerateConfig(repetition_penalty=2.0), [[0, 1]]).tolist()
    [[1.0, -2.0, 0.5]]
    >>> penalized_logits(z, GenerateConfig(no_repeat_ngram=2), [[0, 2, 0]]).tolist()
    [[2.0, -1.0, -inf]]
    """
    if len(generated) != logits.shape[0]:
        raise ValueError(f"{len(generated)} generated-id lists for {logits.shape[0]} rows of logits: pass one per row")
    out = logits.float().clone()
    for r, ids in enumerate(generated):
        if not ids:
            continue
        seen, counts = torch.unique(torch.tensor(list(ids), dtype=torch.long), return_counts=True)
        seen = seen.to(out.device)
        if config.repetition_penalty != 1.0:
            z = out[r, seen]
            out[r, seen] = torch.where(z > 0, z / config.repetition_penalty, z * config.repetition_penalty)
        if config.frequency_penalty or config.presence_penalty:
            out[r, seen] -= (config.frequency_penalty * counts.float() + config.presence_penalty).to(out.device)
        banned = _ngram_bans(ids, config.no_repeat_ngram)
        if banned:
            out[r, torch.tensor(sorted(banned), dtype=torch.long, device=out.device)] = float("-inf")
    return out


def _ngram_bans(ids: Sequence[int], k: int) -> set[int]:
    """{v : (ids[-k+1:], v) is a k-gram of ids}: the tokens that would repeat a k-gram (none when k = 0)."""
    if k < 2 or len(ids) < k:
        return set()
    tail = tuple(ids[len(ids) - k + 1:])
    return {ids[i + k - 1] for i in range(len(ids) - k + 1) if tuple(ids[i:i + k - 1]) == tail}


def min_p_filter(probs: torch.Tensor, min_p: float) -> torch.Tensor:
    """probs with every p_v < min_p * max_v p_v set to 0, renormalized; `probs` itself when min_p is 0."""
    if min_p <= 0:
        return probs
    kept = torch.where(probs >= min_p * probs.amax(dim=-1, keepdim=True), probs, torch.zeros_like(probs))
    return kept / kept.sum(dim=-1, keepdim=True)


def next_tokens(logits: torch.Tensor, config: GenerateConfig, generators: list[torch.Generator],
                generated: Sequence[Sequence[int]]) -> torch.Tensor:
    """One token per row: argmax at temperature 0, else a draw from row r's nucleus with `generators[r]`.

    `generated[r]` are the ids row r has generated so far (its prompt's ids not among them): the decoding controls
    against repetition are computed from them (module docstring); with every control off the logits are used as
    they come. The generators live on the CPU, so the nucleus probabilities are drawn from there (one copy per step
    from a GPU) and the tokens go back to the logits' device: a seeded row draws alike on every device.
    """
    if config.controls_repetition:
        logits = penalized_logits(logits, config, generated)
    if config.temperature == 0:
        return logits.argmax(dim=-1)
    probs = min_p_filter(torch.softmax(logits.float() / config.temperature, dim=-1), config.min_p)
    probs = nucleus(probs, config.top_p).cpu()
    drawn = torch.cat([torch.multinomial(probs[r], 1, generator=g) for r, g in enumerate(generators)])
    return drawn.to(logits.device)
