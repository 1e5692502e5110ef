"""Tiny randomly initialised causal LMs of the registry's architectures, built on the spot (no download, seconds).

They have the real model classes (Llama for SmolLM2, Qwen2 for Qwen2.5-Coder, Gemma 3 with its sliding-window
layers) at a toy size (2 layers, hidden size 64) and a byte-level tokenizer, so every code path of the local
engine runs in seconds: the tests use them, and `scripts/check_gpu.py` compares a GPU against the CPU with
them where the packaged weights are too large to bring along.
"""

from __future__ import annotations

from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import (
    Gemma3ForCausalLM,
    Gemma3TextConfig,
    LlamaConfig,
    LlamaForCausalLM,
    PreTrainedTokenizerFast,
    Qwen2Config,
    Qwen2ForCausalLM,
)

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
SPECIAL = ["<|end|>", "<|pad|>"]

ARCHITECTURES = {"llama": "smollm2-135m", "qwen2": "qwen2.5-coder-0.5b, qwen2.5-coder-1.5b", "gemma3": "gemma3-270m"}
"""Tiny architectures -> the registry models that have them."""

SIZE = {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
        "num_key_value_heads": 2, "max_position_embeddings": 2048}
"""The toy size shared by every architecture (grouped-query attention: 4 query heads, 2 key/value heads)."""


def _byte_char(b: int) -> str:
    """The GPT-2 byte-level character of byte `b` (printable bytes stand for themselves, the rest move to 256+)."""
    printable = set(range(ord("!"), ord("~") + 1)) | set(range(0xA1, 0xAD)) | set(range(0xAE, 0x100))
    if b in printable:
        return chr(b)
    return chr(256 + sorted(set(range(256)) - printable).index(b))


def tiny_tokenizer(ascii_only: bool = False) -> PreTrainedTokenizerFast:
    """One token per byte plus an end-of-text and a pad token.

    `ascii_only`: the vocabulary holds only printable ASCII, space and newline, so whatever the model
    generates decodes to text that tokenizes back to the same ids (random bytes need not be valid UTF-8).
    """
    if ascii_only:
        alphabet = [_byte_char(b) for b in [0x0A, *range(0x20, 0x7F)]]
    else:
        alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    vocab = {ch: i for i, ch in enumerate(alphabet)}
    for special in SPECIAL:
        vocab[special] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|end|>", pad_token="<|pad|>")
    tok.chat_template = CHAT_TEMPLATE
    return tok


def _model(arch: str, tok: PreTrainedTokenizerFast) -> LlamaForCausalLM | Qwen2ForCausalLM | Gemma3ForCausalLM:
    common = {**SIZE, "vocab_size": len(tok), "initializer_range": 0.1, "eos_token_id": tok.eos_token_id,
              "pad_token_id": tok.pad_token_id, "bos_token_id": None}
    if arch == "llama":
        return LlamaForCausalLM(LlamaConfig(**common, tie_word_embeddings=False))
    if arch == "qwen2":
        return Qwen2ForCausalLM(Qwen2Config(**common, tie_word_embeddings=True))
    if arch == "gemma3":  # one sliding-window layer (window 8 tokens) and one full-attention layer
        return Gemma3ForCausalLM(Gemma3TextConfig(**common, head_dim=16, query_pre_attn_scalar=16, sliding_window=8,
                                                  layer_types=["sliding_attention", "full_attention"]))
    raise ValueError(f"arch={arch!r}: choose one of {sorted(ARCHITECTURES)}")


def tiny_model_dir(root: Path, seed: int = 0, *, arch: str = "llama", ascii_only: bool = False) -> Path:
    """Save a tiny randomly initialised model of `arch` (weights drawn with `seed`) and its tokenizer under `root`."""
    tok = tiny_tokenizer(ascii_only)
    torch.manual_seed(seed)
    model = _model(arch, tok)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(root)
    tok.save_pretrained(root)
    return Path(root)
