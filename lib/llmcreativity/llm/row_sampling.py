"""One random generator per sampled row, so that a sample's random draws do not depend on its batch companions.

Row i of prompt x under config c draws every token from its own generator seeded with
seed(x, c, i) = first 8 bytes of SHA-256(repr((x, c without n and logprobs, i))). The sample count n is
left out, so sample i is the same whether n = 1 or n = 10, and so is whether log-probabilities are returned;
the batch layout (which other prompts were sampled together) never enters. The draws are then the row's own; the
logits they are drawn from are the engine's: identical whatever the history and batch on llama.cpp and on
transformers in float32, but not on transformers in bfloat16, whose numbers change with the batch's shape, so a
bfloat16 sample can part from the same row sampled alone after some tokens (`tests/test_llm_sample_independence.py`).
"""

from __future__ import annotations

import hashlib

import torch

from .config import GenerateConfig


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
    probs = torch.softmax(logits.float() / temperature, dim=-1)
    if top_p >= 1.0:
        return probs
    sorted_p, order = probs.sort(dim=-1, descending=True)
    before = sorted_p.cumsum(dim=-1) - sorted_p
    sorted_p = torch.where(before < top_p, sorted_p, torch.zeros_like(sorted_p))
    kept = torch.zeros_like(probs).scatter(-1, order, sorted_p)
    return kept / kept.sum(dim=-1, keepdim=True)


def next_tokens(logits: torch.Tensor, config: GenerateConfig, generators: list[torch.Generator]) -> torch.Tensor:
    """One token per row: argmax at temperature 0, else a draw from row r's nucleus with `generators[r]`.

    The generators live on the CPU, so the nucleus probabilities are drawn from there (one copy per step from a
    GPU) and the tokens go back to the logits' device: a seeded row draws alike on every device.
    """
    if config.temperature == 0:
        return logits.argmax(dim=-1)
    probs = sampling_probs(logits, config.temperature, config.top_p).cpu()
    drawn = torch.cat([torch.multinomial(probs[r], 1, generator=g) for r, g in enumerate(generators)])
    return drawn.to(logits.device)
