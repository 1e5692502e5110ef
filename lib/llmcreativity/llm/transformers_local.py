"""Local causal language models through `transformers`, on the CPU.

GGUF checkpoints are dequantized once and saved as safetensors in the cache folder (the
dequantization takes minutes for the 1.5B model; loading the saved copy takes seconds).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import torch
from tqdm.auto import tqdm
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers import GenerationConfig as HFGenerationConfig
from transformers.utils import logging as hf_logging

from ..paths import cache_dir
from .backend import check_prompt
from .config import GenerateConfig
from .registry import local_identity
from .types import AnswerDistribution, Completion, Prompt, TokenScores, Usage

hf_logging.set_verbosity_error()

DTYPES = {"float32": torch.float32, "bfloat16": torch.bfloat16}


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
        model.hf_quantizer = None
        model.config.__dict__.pop("quantization_config", None)
        model.save_pretrained(tmp)
        Path(tmp, ".complete").write_text(str(gguf_path))
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
    return target


class TransformersBackend:
    """A causal LM run by transformers on the local CPU.

    Args:
        path: a folder or hub-style id loadable by `from_pretrained` (offline).
        name: the name used in the cache identity.
        chat: whether list-of-messages prompts use the tokenizer's chat template (True for instruct models).
        dtype: "float32" (default, exact) or "bfloat16" (faster on CPUs with AMX, less exact).
        batch_size: most prompts sampled together in one batched generation (each with its n samples).
    """

    def __init__(self, path: str | Path, *, name: str, chat: bool = True, dtype: str = "float32", batch_size: int = 4):
        if dtype not in DTYPES:
            raise ValueError(f"dtype={dtype!r}: choose one of {sorted(DTYPES)}")
        self.name = name
        self.chat = chat
        self.batch_size = batch_size
        self.identity = local_identity(name, dtype)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(path, dtype=DTYPES[dtype])
        self.model.eval()
        eos = self.model.generation_config.eos_token_id
        self.eos_ids = set(eos if isinstance(eos, list) else [eos]) | {self.tokenizer.eos_token_id}

    # -- prompt encoding -------------------------------------------------------------
    def _prompt_ids(self, prompt: Prompt) -> list[int]:
        check_prompt(prompt)
        if isinstance(prompt, list):
            if not self.chat:
                raise ValueError(f"model {self.name!r} is a base model without a chat template: pass a plain string "
                                 "prompt")
            text = self.tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)
            return self.tokenizer(text, add_special_tokens=False)["input_ids"]
        return self.tokenizer(prompt)["input_ids"]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    # -- sampling ----------------------------------------------------------------------
    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        """Sample n completions per prompt; each batch of prompts is one `model.generate` call."""
        encoded = [self._prompt_ids(p) for p in prompts]
        out: list[list[Completion]] = []
        starts = range(0, len(encoded), self.batch_size)
        for start in tqdm(starts, desc=f"{self.name} generate", unit="batch", disable=len(starts) < 2, leave=False):
            out.extend(self._generate_batch(encoded[start:start + self.batch_size], config))
        return out

    def _generate_batch(self, batch: list[list[int]], config: GenerateConfig) -> list[list[Completion]]:
        width = max(len(ids) for ids in batch)
        pad = self.tokenizer.pad_token_id
        input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids in batch])
        attention = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in batch])
        sample = config.temperature > 0
        gen_config = HFGenerationConfig(
            do_sample=sample, temperature=config.temperature if sample else None,
            top_p=config.top_p if sample else None,
            top_k=None, max_new_tokens=config.max_tokens, num_return_sequences=config.n,
            pad_token_id=pad, eos_token_id=sorted(self.eos_ids), output_logits=True, return_dict_in_generate=True,
            stop_strings=list(config.stop) or None,
        )
        digest = hashlib.sha256(repr((batch, config.seed)).encode()).digest()
        torch.manual_seed(int.from_bytes(digest[:4], "little"))
        t0 = time.perf_counter()
        with torch.inference_mode():
            result = self.model.generate(input_ids=input_ids, attention_mask=attention, generation_config=gen_config,
                                         tokenizer=self.tokenizer)
        seconds = (time.perf_counter() - t0) / (len(batch) * config.n)
        new = result.sequences[:, width:]
        logp = torch.log_softmax(torch.stack(result.logits, dim=1).float(), dim=-1)
        chosen = logp.gather(-1, new[:, : logp.shape[1], None]).squeeze(-1)
        rows = [self._completion(new[r].tolist(), chosen[r].tolist(), config, seconds) for r in range(new.shape[0])]
        for i, ids in enumerate(batch):
            for c in rows[i * config.n:(i + 1) * config.n]:
                c.usage.prompt_tokens = len(ids)
        return [rows[i * config.n:(i + 1) * config.n] for i in range(len(batch))]

    def _completion(self, ids: list[int], logprobs: list[float], config: GenerateConfig, seconds: float) -> Completion:
        """Cut a generated row at end-of-sequence or the first stop string."""
        finish = "length"
        for j, t in enumerate(ids):
            if t in self.eos_ids:
                ids, logprobs, finish = ids[:j], logprobs[:j], "stop"
                break
        pieces = [self.tokenizer.decode(ids[: j + 1]) for j in range(len(ids))]
        text = pieces[-1] if pieces else ""
        cut = min((text.find(s) for s in config.stop if s in text), default=-1)
        if cut >= 0:
            keep = sum(1 for p in pieces if len(p) <= cut)
            ids, logprobs, text, finish = ids[:keep], logprobs[:keep], text[:cut], "stop"
        tokens = self.tokenizer.convert_ids_to_tokens(ids)
        return Completion(text, tokens, logprobs, finish, Usage(0, len(ids), seconds))

    # -- scoring -------------------------------------------------------------------------
    def _continuation_logprobs(self, ctx: list[int], conts: list[list[int]]) -> list[list[float]]:
        """Teacher-forced log p(cont_j | ctx, cont_<j) for each continuation, in one right-padded batch."""
        seqs = [ctx + c for c in conts]
        width = max(len(s) for s in seqs)
        pad = self.tokenizer.pad_token_id
        ids = torch.tensor([s + [pad] * (width - len(s)) for s in seqs])
        mask = torch.tensor([[1] * len(s) + [0] * (width - len(s)) for s in seqs])
        with torch.inference_mode():
            logits = self.model(input_ids=ids, attention_mask=mask).logits.float()
        logp = torch.log_softmax(logits, dim=-1)
        out = []
        for r, c in enumerate(conts):
            pos = torch.arange(len(ctx) - 1, len(ctx) - 1 + len(c))
            out.append(logp[r, pos, torch.tensor(c)].tolist())
        return out

    def score(self, context: Prompt, continuation: str) -> TokenScores:
        """log p(x_j | context, x_<j) for the tokens x of `continuation` (teacher forcing, one forward pass)."""
        ctx = self._prompt_ids(context)
        cont = self.tokenizer(continuation, add_special_tokens=False)["input_ids"]
        if not cont:
            raise ValueError("continuation is empty: there are no tokens to score")
        t0 = time.perf_counter()
        (lps,) = self._continuation_logprobs(ctx, [cont])
        usage = Usage(len(ctx) + len(cont), 0, time.perf_counter() - t0)
        return TokenScores(self.tokenizer.convert_ids_to_tokens(cont), lps, usage)

    def answer_probs(self, prompt: Prompt, answers: list[str]) -> AnswerDistribution:
        """p(a | prompt) for each answer a: the product of its token probabilities, renormalized over `answers`."""
        ctx = self._prompt_ids(prompt)
        conts = [self.tokenizer(a, add_special_tokens=False)["input_ids"] for a in answers]
        t0 = time.perf_counter()
        if all(len(c) == 1 for c in conts):
            with torch.inference_mode():
                last = torch.log_softmax(self.model(input_ids=torch.tensor([ctx])).logits[0, -1].float(), dim=-1)
            sums = [float(last[c[0]]) for c in conts]
        else:
            sums = [sum(lp) for lp in self._continuation_logprobs(ctx, conts)]
        logz = torch.logsumexp(torch.tensor(sums), dim=0).item()
        probs = {a: float(torch.exp(torch.tensor(s - logz))) for a, s in zip(answers, sums, strict=True)}
        usage = Usage(len(ctx), 0, time.perf_counter() - t0)
        return AnswerDistribution(probs, dict(zip(answers, sums, strict=True)), usage)
