"""Local causal language models through `transformers`, on the CPU or a CUDA GPU (`device`).

The engine reads a shared token prefix once: every forward pass starts from the longest stored
key/value state that the prompt begins with (`PrefixCache`), or from the common prefix of its batch,
and computes only the remaining suffixes, right-padded into one batch. Sampling runs its own decode
loop with one random generator per row (`row_sampling`); in float32 a sample is then the same whatever was computed
before and whatever batch it rides in (same token ids; log-probabilities within 1e-4), while in bfloat16 the
numbers change with the batch's padded shape, so a bfloat16 sample may depend on its batch companions.

GGUF checkpoints are dequantized once and saved as safetensors in the cache folder (the
dequantization takes minutes for the 1.5B model; loading the saved copy takes seconds).

One backend computes one call at a time: its public methods hold a lock, so threads that share it (items
of a stage run concurrently for an endpoint) queue instead of mixing their batches in the prefix store.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
from tqdm.auto import tqdm
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.cache_utils import CacheLayerMixin, DynamicCache
from transformers.utils import logging as hf_logging

from ..paths import cache_dir
from .device import device_kind, local_batch_size, resolve_device, resolve_device_dtype
from .generate_config import GenerateConfig
from .local_engine import TeacherForcedScoring, cut_completion, hits_stop, prompt_ids, refuse_local_lm, text_ids
from .prefix_cache import KV, PrefixCache, batch_prefix_length
from .registry import local_identity
from .row_sampling import next_tokens, row_generators
from .types import Completion, Prompt

if TYPE_CHECKING:
    from transformers import PretrainedConfig, PreTrainedModel

hf_logging.set_verbosity_error()

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}

P = ParamSpec("P")
R = TypeVar("R")


def convert_gguf(name: str, gguf_path: Path) -> Path:
    """Dequantize a GGUF checkpoint once into `cache_dir()/models/<name>/hf` and return that folder.

    Written into a temporary folder and renamed into place, so a killed conversion is redone.
    """
    target = cache_dir() / "models" / name / "hf"
    if (target / "config.json").exists() and (target / ".complete").exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".tmp-hf-") as tmp:
        kw = {"gguf_file": gguf_path.name}
        AutoTokenizer.from_pretrained(gguf_path.parent, **kw).save_pretrained(tmp)
        model = AutoModelForCausalLM.from_pretrained(gguf_path.parent, dtype=torch.float32, **kw)
        # The weights are already dequantized to float32; drop the GGUF marker so they can be saved.
        model.hf_quantizer = None  # type: ignore[assignment]  # torch types Module attributes as tensors or modules
        model.config.__dict__.pop("quantization_config", None)
        model.save_pretrained(tmp)
        Path(tmp, ".complete").write_text(str(gguf_path))
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    return target


def _serialized(method: Callable[Concatenate[TransformersBackend, P], R]
                ) -> Callable[Concatenate[TransformersBackend, P], R]:
    """Run `method` under the backend's lock (one call at a time per backend)."""
    @functools.wraps(method)
    def locked(self: TransformersBackend, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return method(self, *args, **kwargs)
    return locked


def _has_windowed_layers(config: PretrainedConfig) -> bool:
    """Whether any attention layer sees only a window of the past (its state cannot be cut to a prefix)."""
    text = config.get_text_config(decoder=True)
    return any(t != "full_attention" for t in (getattr(text, "layer_types", None) or []))


def _cache_state(cache: DynamicCache) -> KV:
    """Each layer's (keys, values) of a filled cache of full-attention layers."""
    state = []
    for layer in cache.layers:
        assert isinstance(layer, CacheLayerMixin) and layer.keys is not None and layer.values is not None
        state.append((layer.keys, layer.values))
    return tuple(state)


class TransformersBackend(TeacherForcedScoring):
    """A causal LM run by transformers on the local CPU or a CUDA GPU.

    Args:
        path: a folder or hub-style id loadable by `from_pretrained` (offline).
        name: the name used in the cache identity.
        chat: whether list-of-messages prompts use the tokenizer's chat template (True for instruct models).
        dtype: "bfloat16" (several times faster on CPUs with AMX and on GPUs, less exact), "float32" (exact) or
            "auto" (on the CPU bfloat16 where it computes it natively, else float32; on CUDA bfloat16 where the GPU
            supports it). The output layer always computes its logits in float32, so sampling and scoring read the
            same, finer log-probabilities.
        batch_size: most prompts sampled together in one batched generation (each with its n samples); None
            takes the device's default (`device.LOCAL_BATCH`: 4 on the CPU, 32 on CUDA).
        device: "auto" (CUDA when torch sees a GPU, else the CPU), "cpu", "cuda" or "cuda:N". Row generators
            stay on the CPU, so a seeded sample is drawn the same way on every device.
        prefix_reuse: start every forward pass from a stored key/value state of the prompt's longest known
            prefix (switched off automatically for models with sliding-window layers).
        prefix_entries: how many prefix states the LRU keeps.
    """

    def __init__(self, path: str | Path, *, name: str, chat: bool = True, dtype: str = "auto",
                 batch_size: int | None = None, prefix_reuse: bool = True, prefix_entries: int = 8,
                 device: str = "auto"):
        refuse_local_lm(name)
        self.device = resolve_device(device)
        dtype = resolve_device_dtype(dtype, self.device)
        self.name = name
        self.chat = chat
        self.dtype = dtype
        self.batch_size = local_batch_size(self.device, batch_size)
        self.identity = local_identity(name, dtype, device_kind(self.device))
        self.independent_samples = dtype == "float32"
        """Whether a sample is independent of what this backend computed before and of its batch: in float32 (the
        tests of `test_llm_sample_independence`), not in bfloat16, whose numbers change with the batch's shape."""
        self._lock = threading.RLock()
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        model = AutoModelForCausalLM.from_pretrained(path, dtype=DTYPES[dtype])
        # transformers wraps `PreTrainedModel.to` with functools.wraps, which mypy does not bind to the instance
        self.model: PreTrainedModel = model.to(self.device)  # type: ignore[arg-type]
        self.model.eval()
        self.decoder = self.model.get_decoder()
        head = self.model.get_output_embeddings()
        self.head_weight = head.weight.detach().float()
        self.head_bias = None if head.bias is None else head.bias.detach().float()
        self.softcap = getattr(self.model.config.get_text_config(decoder=True), "final_logit_softcapping", None)
        self.reuse = prefix_reuse and not _has_windowed_layers(self.model.config)
        self.prefixes = PrefixCache(prefix_entries)
        eos = self.model.generation_config.eos_token_id
        self.eos_ids = set(eos if isinstance(eos, list) else [eos]) | {self.tokenizer.eos_token_id}
        self.eos_ids.discard(None)

    # -- prompt encoding -------------------------------------------------------------
    def _prompt_ids(self, prompt: Prompt) -> list[int]:
        return prompt_ids(self.tokenizer, prompt, chat=self.chat, name=self.name)

    def _tensor(self, data: Sequence[int] | Sequence[Sequence[int]]) -> torch.Tensor:
        """`data` as an integer tensor on the model's device."""
        return torch.tensor(data, dtype=torch.long, device=self.device)

    @_serialized
    def count_tokens(self, text: str) -> int:
        return len(text_ids(self.tokenizer, text))

    # -- the forward pass over shared prefixes ------------------------------------------
    def _decode(self, ids: torch.Tensor, mask: torch.Tensor, positions: torch.Tensor,
                cache: DynamicCache | None) -> tuple[torch.Tensor, DynamicCache]:
        """The decoder's last hidden states and updated cache for `ids` placed at `positions` after `cache`."""
        out = self.decoder(input_ids=ids, attention_mask=mask, position_ids=positions, cache=cache, use_cache=True)
        return out.last_hidden_state, out.cache

    def _logits(self, hidden: torch.Tensor) -> torch.Tensor:
        """Next-token logits of the hidden states, computed in float32, with the model's final soft-capping if any.

        A bfloat16 output layer would round logits near 16 to steps of 0.06; the float32 one keeps prefix reuse
        within 2e-2 of a full recomputation and generation within reach of teacher-forced scores.
        """
        logits = torch.nn.functional.linear(hidden.float(), self.head_weight, self.head_bias)
        if self.softcap:
            logits = torch.tanh(logits / self.softcap) * self.softcap
        return logits

    @torch.inference_mode()
    def _prefix_state(self, ids: list[int]) -> KV | None:
        """The key/value state of `ids`: the longest stored start, extended by the model; stored for reuse.

        Computed in inference mode: a stored state built with autograd on would keep its forward pass's whole
        graph (every layer's activations over the prefix) alive for as long as the state stays in the store.
        """
        if not ids or not self.reuse:
            return None
        start, kv = self.prefixes.longest(ids)
        if start < len(ids):
            cache = DynamicCache(ddp_cache_data=kv) if kv else DynamicCache()
            rest = self._tensor([ids[start:]])
            positions = torch.arange(start, len(ids), device=self.device)[None]
            _, cache = self._decode(rest, torch.ones(1, len(ids), dtype=torch.long, device=self.device), positions,
                                    cache)
            kv = _cache_state(cache)
            self.prefixes.put(ids, kv)
        return kv

    @staticmethod
    def _batch_cache(kv: KV | None, rows: int) -> DynamicCache | None:
        """A fresh cache holding the prefix state once per row (None when there is no prefix)."""
        if kv is None:
            return None
        return DynamicCache(ddp_cache_data=[(k.expand(rows, -1, -1, -1), v.expand(rows, -1, -1, -1)) for k, v in kv])

    def _shared_length(self, seqs: list[list[int]], firsts: list[int]) -> int:
        """P: the tokens all `seqs` share, short of the first position any of them needs logits for."""
        if not self.reuse:
            return 0
        return max(0, min(batch_prefix_length(seqs), min(firsts) - 1))

    def _read(self, seqs: list[list[int]], firsts: list[int]) -> tuple[list[list[float]], torch.Tensor]:
        """Teacher forcing over a batch that shares a prefix.

        Row r gives log p(s_t | s_<t) for t = firsts[r] .. len(s)-1, and the next-token distribution
        log p(. | s) after the whole row. The shared prefix s_<P is read once (or taken from the store);
        the suffixes go through the model in one right-padded batch.
        """
        shared = self._shared_length(seqs, firsts)
        kv = self._prefix_state(seqs[0][:shared])
        suffixes = [s[shared:] for s in seqs]
        width = max(len(s) for s in suffixes)
        pad = self.tokenizer.pad_token_id
        ids = self._tensor([s + [pad] * (width - len(s)) for s in suffixes])
        mask = self._tensor([[1] * (shared + len(s)) + [0] * (width - len(s)) for s in suffixes])
        positions = (shared + torch.arange(width, device=self.device)).expand(len(seqs), -1)
        scored, last = [], []
        with torch.inference_mode():
            hidden, _ = self._decode(ids, mask, positions, self._batch_cache(kv, len(seqs)))
            for r, s in enumerate(seqs):
                logp = torch.log_softmax(self._logits(hidden[r, firsts[r] - 1 - shared:len(s) - shared]), dim=-1)
                targets = self._tensor(s[firsts[r]:])
                scored.append(logp[:-1].gather(-1, targets[:, None]).squeeze(-1).tolist())
                last.append(logp[-1])
        return scored, torch.stack(last)

    # -- sampling ----------------------------------------------------------------------
    @_serialized
    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        """Sample n completions per prompt; each batch of prompts is one prefill and one batched decode loop."""
        encoded = [self._prompt_ids(p) for p in prompts]
        out: list[list[Completion]] = []
        starts = range(0, len(encoded), self.batch_size)
        for start in tqdm(starts, desc=f"{self.name} generate", unit="batch", disable=len(starts) < 2, leave=False):
            out.extend(self._generate_batch(encoded[start:start + self.batch_size], config))
        return out

    def _prefill(self, batch: list[list[int]]) -> tuple[torch.Tensor, DynamicCache, torch.Tensor, torch.Tensor]:
        """Read the prompts after their shared prefix; the suffixes are left-padded so their ends line up.

        Returns the last position's logits, the cache, the attention mask and the next position of each prompt.
        """
        shared = self._shared_length(batch, [len(s) for s in batch])
        kv = self._prefix_state(batch[0][:shared])
        suffixes = [s[shared:] for s in batch]
        width = max(len(s) for s in suffixes)
        gaps = [width - len(s) for s in suffixes]
        pad = self.tokenizer.pad_token_id
        ids = self._tensor([[pad] * g + s for g, s in zip(gaps, suffixes, strict=True)])
        mask = self._tensor([[1] * shared + [0] * g + [1] * len(s) for g, s in zip(gaps, suffixes, strict=True)])
        positions = self._tensor([[shared] * g + list(range(shared, shared + len(s)))
                                  for g, s in zip(gaps, suffixes, strict=True)])
        hidden, cache = self._decode(ids, mask, positions, self._batch_cache(kv, len(batch)))
        return self._logits(hidden[:, -1]), cache, mask, self._tensor([len(s) for s in batch])

    def _generate_batch(self, batch: list[list[int]], config: GenerateConfig) -> list[list[Completion]]:
        n = config.n
        generators = row_generators(batch, config)
        rows = len(generators)
        new: list[list[int]] = [[] for _ in range(rows)]
        logprobs: list[list[float]] = [[] for _ in range(rows)]
        done = [False] * rows
        t0 = time.perf_counter()
        with torch.inference_mode():
            logits, cache, mask, position = self._prefill(batch)
            cache.batch_repeat_interleave(n)
            logits, mask, position = (t.repeat_interleave(n, dim=0) for t in (logits, mask, position))
            for step in range(config.max_tokens):
                token = next_tokens(logits, config, generators, new)
                chosen = torch.log_softmax(logits, dim=-1).gather(-1, token[:, None]).squeeze(-1)
                token_list, chosen_list = token.tolist(), chosen.tolist()  # one device-to-host copy each
                for r in range(rows):
                    if not done[r]:
                        new[r].append(int(token_list[r]))
                        logprobs[r].append(float(chosen_list[r]))
                        done[r] = new[r][-1] in self.eos_ids or self._hit_stop(new[r], config.stop)
                if all(done) or step == config.max_tokens - 1:
                    break
                mask = torch.cat([mask, torch.ones(rows, 1, dtype=mask.dtype, device=self.device)], dim=1)
                hidden, cache = self._decode(token[:, None], mask, position[:, None], cache)
                position = position + 1
                logits = self._logits(hidden[:, -1])
        seconds = (time.perf_counter() - t0) / rows
        completions = [self._completion(new[r], logprobs[r], config, seconds) for r in range(rows)]
        for i, ids in enumerate(batch):
            for c in completions[i * n:(i + 1) * n]:
                c.usage.prompt_tokens = len(ids)
        return [completions[i * n:(i + 1) * n] for i in range(len(batch))]

    def _hit_stop(self, ids: list[int], stop: tuple[str, ...]) -> bool:
        return hits_stop(self.tokenizer, ids, stop)

    def _completion(self, ids: list[int], logprobs: list[float], config: GenerateConfig, seconds: float) -> Completion:
        """Cut a generated row at end-of-sequence or the first stop string."""
        return cut_completion(self.tokenizer, self.eos_ids, ids, logprobs, config, seconds)

    # -- scoring -------------------------------------------------------------------------
    score = _serialized(TeacherForcedScoring.score)
    answer_probs_batch = _serialized(TeacherForcedScoring.answer_probs_batch)
