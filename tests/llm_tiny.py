"""A tiny randomly initialised causal LM with a byte-level tokenizer, built on the spot (no download, seconds)."""

from __future__ import annotations

from pathlib import Path

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

from llmcreativity.llm.transformers_local import TransformersBackend

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}<|end|>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
SPECIAL = ["<|end|>", "<|pad|>"]


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    """One token per byte (GPT-2 byte alphabet) plus an end-of-text and a pad token."""
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    for tok in SPECIAL:
        vocab[tok] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|end|>", pad_token="<|pad|>")
    tok.chat_template = CHAT_TEMPLATE
    return tok


def tiny_model_dir(root: Path, seed: int = 0) -> Path:
    """Save a 2-layer Llama (hidden 64, grouped-query attention) and its tokenizer under `root`; return it."""
    tok = tiny_tokenizer()
    config = LlamaConfig(vocab_size=len(tok), hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                         initializer_range=0.1, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id,
                         bos_token_id=None, tie_word_embeddings=False)
    torch.manual_seed(seed)
    model = LlamaForCausalLM(config)
    model.generation_config.eos_token_id = tok.eos_token_id
    model.save_pretrained(root)
    tok.save_pretrained(root)
    return root


def tiny_backend(root: Path, **kwargs) -> TransformersBackend:
    """A TransformersBackend over the tiny model saved in `root`."""
    return TransformersBackend(root, name="tiny-llama", **kwargs)
