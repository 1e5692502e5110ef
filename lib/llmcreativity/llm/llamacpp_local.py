"""Registry GGUF models run in-process by llama.cpp (llama-cpp-python), behind the same interface as transformers.

The packaged GGUF is computed with its own quantized weights (no float32 copy), so every decode step reads
4-5x fewer bytes than the dequantized transformers model. Everything around the numbers is the transformers
path's: prompt ids come from the same Hugging Face tokenizer and chat template (`local_engine`) and are fed to
llama.cpp as ids; tokens are drawn from llama.cpp's logits z by the project's row-seeded rule (`row_sampling`),
and every decode call takes ggml's one-query-at-a-time attention path (`INDEPENDENT_CALL_TOKENS`), so sample i of a
prompt is the same, to the bit, whatever the backend computed before and whatever batch it rides in; a row is
cut at end-of-sequence or a stop string as in the transformers path. Scores are teacher-forced:
log p(x_t | x_<t) = log_softmax(z_{t-1})[x_t], with z_{t-1} llama.cpp's logits after x_<t; logits are computed only
at the positions that are read.

Key/value memory: one unified llama.cpp cache whose cells carry sequence ids. Sequence 0 (the anchor) keeps the
token prefix last shared by a call's rows; a new call reads only what its rows' shared prefix adds to the anchor's
longest matching start (the story that five rubric dimensions share, the task and solution that a judge panel
shares). Each row (a prompt's sample, or a scored sequence) is its own sequence 1..parallel: it gets the anchor's
first P cells by a sequence copy (cells are tagged, not copied), and all rows advance together, one llama.cpp
decode per step, so the weights are read once per step for every row.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict, Unpack

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import torch

try:
    import llama_cpp
    from llama_cpp._internals import LlamaBatch, LlamaContext, LlamaModel
except ImportError as err:  # environment.yml installs it; a hand-made environment may lack it
    raise ImportError("engine='llama.cpp' (a llama.cpp:NAME role) needs llama-cpp-python: run "
                      "`python3 scripts/setup_env.py` (builds it once, about 12 minutes on two cores) or drop the "
                      "llama.cpp: prefix (transformers engine)") from err
from transformers import AutoConfig, AutoTokenizer, GenerationConfig
from transformers.utils import logging as hf_logging

from ..context import compute_threads_asked
from ..paths import cache_dir
from .generate_config import GenerateConfig
from .local_engine import TeacherForcedScoring, cut_completion, hits_stop, prompt_ids, refuse_local_lm, text_ids
from .prefix_cache import batch_prefix_length, common_prefix_length
from .registry import get_spec, llamacpp_identity, materialize
from .row_sampling import next_tokens, row_seed
from .types import Completion, Prompt

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerBase as Tokenizer

hf_logging.set_verbosity_error()
logging.getLogger("llama-cpp-python").setLevel(logging.ERROR)  # llama.cpp's load and decode chatter, errors kept

INDEPENDENT_CALL_TOKENS = 63
"""Most tokens of one llama.cpp decode call that keep its numbers independent of the cache's layout.

ggml's CPU flash attention (in the llama.cpp that llama-cpp-python 0.3.36 vendors) takes one of three paths. A call
of 64 or more queries goes through tiles of 64 key/value cells; a call of one query with 512 or more cells in view
splits the cells into one chunk per thread and merges the chunks' partial softmax sums. Both group a row's cells
by where they sit in the cache, which depends on what was computed before and on the batch companions. Every other
call sums each query's visible cells one at a time in cell order, which here is the row's position order (a call
only appends cells after the anchor), and the matrix products treat each token alone, so a row's numbers depend on
its own tokens only. Calls of 2 to 63 tokens (a lone token gets a companion) therefore make a sample independent of
history and batch (`tests/llm/test_llm_sample_independence.py`)."""

INDEPENDENT_MODELS = frozenset({"smollm2-135m"})
"""Registry models whose llama.cpp samples the tests show independent of history and batch with `independent`
(`tests/llm/test_llm_sample_independence.py`). Not the qwen2.5-coder GGUFs: in the replay of a default run (2026-12-01)
their recomputed samples and teacher-forced log-probabilities differed from the recorded ones (up to 0.24 nats per
token, 0.016 in an answer probability), so some part of their computation still depends on the batch; until that is
found, their records are the evidence and the spot check reports the differences."""

VOCAB_PROBE = "Hello, world! Ünïcödé, emoji 🚀, code: def f(x):\n    return x ** 2  # 3.14\n\n<|im_start|>"
"""Text that llama.cpp and the Hugging Face tokenizer must split into the same ids (checked on load)."""


def physical_cores(cpuinfo: str | None = None) -> int:
    """Physical cores available to this process: distinct (physical id, core id) pairs of /proc/cpuinfo, at most
    the CPUs this process may run on; the number of those CPUs where /proc/cpuinfo names no cores."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return usable
    cores, socket = set(), "0"
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "physical id":
            socket = value.strip()
        elif key.strip() == "core id":
            cores.add((socket, value.strip()))
    return max(1, min(len(cores), usable)) if cores else usable


def compute_threads() -> int:
    """The threads a llama.cpp backend computes with unless told: $OMP_NUM_THREADS where it is a positive number (the
    count torch and OpenBLAS read too, so that one variable sizes every pool of a process that shares the machine
    with another, as `make test`'s two workers do), else `physical_cores`."""
    return compute_threads_asked() or physical_cores()


def gguf_text_side(gguf_path: Path, folder: Path | None = None) -> tuple[Tokenizer, set[int]]:
    """The transformers path's tokenizer and end-of-sequence ids for a GGUF model.

    From `folder` (the model converted by `convert_gguf`, which saved exactly this tokenizer and the model's
    generation config) where given, else read from the GGUF itself as `convert_gguf` reads it. The end-of-sequence
    ids are the generation config's plus the tokenizer's, as in `TransformersBackend`.
    """
    if folder is not None:
        tokenizer = AutoTokenizer.from_pretrained(folder)
        eos = GenerationConfig.from_pretrained(folder).eos_token_id
    else:
        kw = {"gguf_file": gguf_path.name}
        tokenizer = AutoTokenizer.from_pretrained(gguf_path.parent, **kw)
        eos = AutoConfig.from_pretrained(gguf_path.parent, **kw).eos_token_id
    eos_ids = set(eos if isinstance(eos, list) else [eos]) | {tokenizer.eos_token_id}
    eos_ids.discard(None)
    return tokenizer, eos_ids


class EngineSettings(TypedDict, total=False):
    """The keyword arguments of `LlamaCppBackend` that `from_registry` passes on."""

    n_ctx: int
    parallel: int
    n_threads: int | None
    n_batch: int
    max_outputs: int
    independent: bool


class LlamaCppBackend(TeacherForcedScoring):
    """A GGUF causal LM run by llama.cpp on the local CPU, with the transformers path's tokenizer and sampler.

    Args:
        gguf_path: the GGUF file.
        name: the name used in the cache identity (`registry.llamacpp_identity`: with the file's digest and the
            llama-cpp-python version).
        chat: whether list-of-messages prompts use the tokenizer's chat template (True for instruct models).
        tokenizer_folder: the `convert_gguf` folder of this model, whose tokenizer to load (faster than reading
            it from the GGUF); None reads it from the GGUF.
        n_ctx: key/value cells shared by every sequence: the anchor prefix plus each row's own tokens and new
            tokens must fit (rows are run in several rounds when they do not); at most the model's trained context.
        parallel: most rows (samples or scored sequences) advanced together.
        n_threads: compute threads; default `compute_threads` ($OMP_NUM_THREADS, else the physical cores).
        n_batch: most tokens per llama.cpp decode call (with `independent`, at most `INDEPENDENT_CALL_TOKENS`).
        max_outputs: most positions whose logits one decode call returns (bounds memory: each is n_vocab floats).
        independent: run every decode call through llama.cpp's one-query-at-a-time attention path (calls of 2 to
            `INDEPENDENT_CALL_TOKENS` tokens), so that a sample or a score does not depend on what the backend
            computed before or on its batch companions; False reads prompts in calls of up to n_batch tokens and
            decodes a lone row alone (faster, but the numbers then depend on the cache's layout; for benchmarks,
            `scripts/bench_sample_independence.py`).
    """

    def __init__(self, gguf_path: str | Path, *, name: str, chat: bool = True, tokenizer_folder: Path | None = None,
                 n_ctx: int = 8192, parallel: int = 16, n_threads: int | None = None, n_batch: int = 512,
                 max_outputs: int = 256, independent: bool = True):
        refuse_local_lm(name)
        gguf_path = Path(gguf_path)
        if not gguf_path.is_file():
            raise FileNotFoundError(f"{gguf_path}: no such GGUF file")
        sizes = {"n_ctx": n_ctx, "parallel": parallel, "n_batch": n_batch, "max_outputs": max_outputs}
        for arg, value in sizes.items():
            if value < 1:
                raise ValueError(f"{arg}={value!r}: must be >= 1")
        self.name = name
        self.chat = chat
        self.gguf_path = gguf_path
        self.identity = llamacpp_identity(name, gguf_path)
        self.tokenizer, self.eos_ids = gguf_text_side(gguf_path, tokenizer_folder)
        self.n_threads = n_threads or compute_threads()
        self.parallel = parallel
        self.n_batch = n_batch
        self.independent = independent
        self.independent_samples = independent and name in INDEPENDENT_MODELS
        """Whether a sample is shown independent of what this backend computed before and of its batch
        (`INDEPENDENT_MODELS`); the spot check then samples a recorded prompt again and wants the same text."""
        self.call_tokens = min(n_batch, INDEPENDENT_CALL_TOKENS) if independent else n_batch
        """Most tokens per llama.cpp decode call."""
        self._companion = parallel + 1  # the sequence of a lone token's companion (`_decode`)
        self.max_outputs = max_outputs
        self._model = LlamaModel(path_model=str(gguf_path), params=llama_cpp.llama_model_default_params(),
                                 verbose=False)
        if llama_cpp.llama_model_n_swa(self._model.model) > 0:
            raise ValueError(f"model {name!r} has sliding-window attention layers: this engine's sequence copies "
                             "do not reproduce them (measured on gemma3-270m: a sample changed with its batch "
                             "companions); use engine='transformers'")
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = min(n_ctx, self._model.n_ctx_train())
        params.n_batch = params.n_ubatch = max(n_batch, 2)  # room for a lone token and its companion
        params.n_seq_max = parallel + 2  # the anchor, the rows and the companion
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_ENABLED  # the attention paths `_decode` relies on
        params.kv_unified = True  # one cell store for all sequences, so a sequence copy tags cells instead of copying
        params.n_threads = params.n_threads_batch = self.n_threads
        self._ctx = LlamaContext(model=self._model, params=params, verbose=False)
        self._memory = llama_cpp.llama_get_memory(self._ctx.ctx)
        self._batch = LlamaBatch(n_tokens=max(n_batch, 2), embd=0, n_seq_max=1, verbose=False)
        self.n_ctx = self._ctx.n_ctx() - independent  # with `independent`, one cell stays free for a companion
        self.n_vocab = self._model.n_vocab()
        self._anchor: list[int] = []
        self.reused_tokens = 0
        """Prompt tokens whose key/value state came from the anchor instead of the model, summed over calls."""
        self._check_vocabulary()

    @classmethod
    def from_registry(cls, name: str, **kwargs: Unpack[EngineSettings]) -> LlamaCppBackend:
        """A registry model's packaged GGUF, with the tokenizer of its `convert_gguf` folder where that exists."""
        spec = get_spec(name)
        folder = cache_dir() / "models" / name / "hf"
        done = (folder / ".complete").exists() and (folder / "tokenizer_config.json").exists()
        return cls(materialize(name), name=name, chat=spec.chat, tokenizer_folder=folder if done else None, **kwargs)

    def use_threads(self, n_threads: int) -> None:
        """Compute with `n_threads` threads from now on (the spot-check worker's, given more cores when it runs
        alone): a row of a matrix product is one thread's whole, so the numbers do not depend on the count (measured:
        qwen2.5-coder-0.5b and smollm2-135m teacher-forced on one and on two threads give the same log-probabilities
        to the bit)."""
        if n_threads < 1:
            raise ValueError(f"n_threads={n_threads!r}: must be >= 1")
        llama_cpp.llama_set_n_threads(self._ctx.ctx, n_threads, n_threads)
        self.n_threads = n_threads

    def _check_vocabulary(self) -> None:
        """Raise unless llama.cpp and the Hugging Face tokenizer give `VOCAB_PROBE` the same ids (same vocabulary)."""
        ours = text_ids(self.tokenizer, VOCAB_PROBE)
        theirs = self._model.tokenize(VOCAB_PROBE.encode(), add_bos=False, special=True)
        if ours != theirs or len(self.tokenizer) > self.n_vocab:
            raise ValueError(f"{self.gguf_path.name}: llama.cpp's vocabulary ({self.n_vocab} tokens) disagrees with "
                             f"the Hugging Face tokenizer's ({len(self.tokenizer)}): the prompt ids would mean other "
                             "tokens; use engine='transformers' for this model")

    # -- prompt encoding -------------------------------------------------------------
    def _prompt_ids(self, prompt: Prompt) -> list[int]:
        return prompt_ids(self.tokenizer, prompt, chat=self.chat, name=self.name)

    def count_tokens(self, text: str) -> int:
        return len(text_ids(self.tokenizer, text))

    # -- llama.cpp calls -----------------------------------------------------------------
    def _run(self, tokens: Sequence[int], positions: Sequence[int], seqs: Sequence[int],
             wants: Sequence[bool]) -> np.ndarray:
        """Decode `tokens` (token j at positions[j] of sequence seqs[j]); the logits of the tokens with wants[j], in
        order, shape (sum(wants), n_vocab).

        One llama.cpp call holds either one token of each of several sequences (a decode step) or the tokens of one
        sequence: this llama.cpp build computes a call that mixes several tokens of several sequences differently
        from the same tokens read one sequence at a time (measured on the 135M model: up to 0.7 in a logit), while
        both allowed kinds reproduce one-token-at-a-time decoding exactly.
        """
        if len(set(seqs)) == len(seqs):
            return self._decode(tokens, positions, seqs, wants)
        out, i = [], 0
        while i < len(tokens):
            j = i
            while j < len(tokens) and seqs[j] == seqs[i]:
                j += 1
            out.append(self._decode(tokens[i:j], positions[i:j], seqs[i:j], wants[i:j]))
            i = j
        return np.concatenate(out)

    def _decode(self, tokens: Sequence[int], positions: Sequence[int], seqs: Sequence[int],
                wants: Sequence[bool]) -> np.ndarray:
        """`_run` in llama.cpp calls of at most `call_tokens` tokens and max_outputs logits.

        With `independent`, a call of one token gets a companion: the same token at position 0 of the companion
        sequence, whose cell is freed right after (so a decode step of one row is a call of two queries).
        """
        b = self._batch.batch
        out, i = [], 0
        while i < len(tokens):
            j, outputs = i, 0
            while j < len(tokens) and j - i < self.call_tokens and outputs + wants[j] <= self.max_outputs:
                k = j - i
                b.token[k], b.pos[k], b.n_seq_id[k], b.logits[k] = tokens[j], positions[j], 1, bool(wants[j])
                b.seq_id[k][0] = seqs[j]
                outputs += bool(wants[j])
                j += 1
            b.n_tokens = j - i
            lone = self.independent and b.n_tokens == 1
            if lone:
                b.token[1], b.pos[1], b.n_seq_id[1], b.logits[1] = tokens[i], 0, 1, False
                b.seq_id[1][0] = self._companion
                b.n_tokens = 2
            code = llama_cpp.llama_decode(self._ctx.ctx, b)
            if lone:
                llama_cpp.llama_memory_seq_rm(self._memory, self._companion, -1, -1)
            if code != 0:
                self._forget()
                why = "no free key/value cells: pass a larger n_ctx" if code == 1 else "see llama.cpp's log"
                raise RuntimeError(f"llama.cpp decode of {j - i} tokens failed with code {code} ({why})")
            if outputs:
                logits = llama_cpp.llama_get_logits(self._ctx.ctx)
                out.append(np.ctypeslib.as_array(logits, shape=(outputs, self.n_vocab)).copy())
            i = j
        return np.concatenate(out) if out else np.zeros((0, self.n_vocab), dtype=np.float32)

    def _forget(self) -> None:
        """Drop every sequence's cells (after a failed decode the cache's content is unknown)."""
        llama_cpp.llama_memory_clear(self._memory, True)
        self._anchor = []

    def _start(self, prefix: list[int], cells: int) -> None:
        """Make the anchor start with `prefix` and free the row sequences, leaving room for `cells` more cells.

        Only the tokens of `prefix` past its longest shared start with the anchor are read. An anchor that already
        starts with `prefix` keeps its longer tail, unless the rows need the room.
        """
        for s in range(1, self.parallel + 1):
            llama_cpp.llama_memory_seq_rm(self._memory, s, -1, -1)
        keep = common_prefix_length(self._anchor, prefix)
        if keep == len(prefix) and len(self._anchor) + cells <= self.n_ctx:
            self.reused_tokens += keep
            return
        if keep < len(self._anchor) and not llama_cpp.llama_memory_seq_rm(self._memory, 0, keep, -1):
            llama_cpp.llama_memory_seq_rm(self._memory, 0, -1, -1)  # a cache that cannot cut a tail (windowed)
            keep = 0
        self._anchor = self._anchor[:keep]
        self.reused_tokens += keep
        rest = prefix[keep:]
        self._run(rest, range(keep, len(prefix)), [0] * len(rest), [False] * len(rest))
        self._anchor = list(prefix)

    def _fits(self, cells: int, what: str) -> None:
        if cells > self.n_ctx:
            raise ValueError(f"{what} needs {cells} key/value cells, more than n_ctx={self.n_ctx}: pass a larger "
                             "n_ctx (at most the model's trained context) or a shorter prompt")

    def _groups(self, cost: Callable[[int, list[int]], int], count: int) -> list[list[int]]:
        """Consecutive groups of the rows 0..count-1, each of at most `parallel` rows and n_ctx cells, where row r
        adds cost(r, rows already in its group) cells."""
        groups: list[list[int]] = [[]]
        used = 0
        for r in range(count):
            c = cost(r, groups[-1])
            if groups[-1] and (len(groups[-1]) == self.parallel or used + c > self.n_ctx):
                groups.append([])
                used, c = 0, cost(r, [])
            self._fits(c, f"row {r}")
            groups[-1].append(r)
            used += c
        return [g for g in groups if g]

    # -- teacher forcing ---------------------------------------------------------------
    def _read(self, seqs: list[list[int]], firsts: list[int]) -> tuple[list[list[float]], torch.Tensor]:
        """Row r gives log p(s_t | s_<t) for t = firsts[r] .. len(s)-1, and the next-token log p(. | s) after it.

        The rows' shared prefix (short of the first position whose logits are read) comes from the anchor.
        """
        scored: list[list[float]] = [[] for _ in seqs]
        last: dict[int, torch.Tensor] = {}
        for group in self._groups(lambda r, _: len(seqs[r]), len(seqs)):
            rows = [seqs[r] for r in group]
            shared = max(0, min(batch_prefix_length(rows), min(firsts[r] for r in group) - 1))
            self._start(rows[0][:shared], sum(len(s) - shared for s in rows))
            tokens: list[int] = []
            positions: list[int] = []
            ids: list[int] = []
            wants: list[bool] = []
            for k, r in enumerate(group):
                llama_cpp.llama_memory_seq_cp(self._memory, 0, k + 1, 0, shared)
                tokens += seqs[r][shared:]
                positions += range(shared, len(seqs[r]))
                ids += [k + 1] * (len(seqs[r]) - shared)
                wants += [t >= firsts[r] - 1 for t in range(shared, len(seqs[r]))]
            logits = torch.from_numpy(self._run(tokens, positions, ids, wants))
            at = 0
            for r in group:
                count = len(seqs[r]) - firsts[r] + 1
                logp = torch.log_softmax(logits[at:at + count], dim=-1)
                at += count
                targets = torch.tensor(seqs[r][firsts[r]:], dtype=torch.long)
                scored[r] = logp[:-1].gather(-1, targets[:, None]).squeeze(-1).tolist()
                last[r] = logp[-1]
        return scored, torch.stack([last[r] for r in range(len(seqs))])

    # -- sampling ----------------------------------------------------------------------
    def generate(self, prompts: list[Prompt], config: GenerateConfig) -> list[list[Completion]]:
        """Sample n completions per prompt: rows (prompt, sample) advance together, up to `parallel` at a time."""
        encoded = [self._prompt_ids(p) for p in prompts]
        rows = [(i, j) for i in range(len(encoded)) for j in range(config.n)]
        found: dict[tuple[int, int], Completion] = {}

        def cost(r: int, group: list[int]) -> int:
            """A row's new tokens, plus its prompt's tokens unless a sample of the same prompt shares them."""
            i = rows[r][0]
            return config.max_tokens + (0 if any(rows[g][0] == i for g in group) else len(encoded[i]))

        for group in self._groups(cost, len(rows)):
            done = self._generate_rows(encoded, [rows[r] for r in group], config)
            for r, completion in zip(group, done, strict=True):
                found[rows[r]] = completion
        return [[found[i, j] for j in range(config.n)] for i in range(len(encoded))]

    def _generate_rows(self, encoded: list[list[int]], rows: list[tuple[int, int]],
                       config: GenerateConfig) -> list[Completion]:
        """Sample the rows (prompt index, sample index) together; row k runs as sequence k + 1."""
        t0 = time.perf_counter()
        prompts = list(dict.fromkeys(i for i, _ in rows))
        ids = [encoded[i] for i in prompts]
        shared = max(0, min(batch_prefix_length(ids), min(len(x) for x in ids) - 1))
        self._start(ids[0][:shared], sum(len(x) - shared for x in ids) + len(rows) * config.max_tokens)
        first = {i: next(k for k, (p, _) in enumerate(rows) if p == i) for i in prompts}
        tokens: list[int] = []
        positions: list[int] = []
        seqs: list[int] = []
        for i in prompts:
            llama_cpp.llama_memory_seq_cp(self._memory, 0, first[i] + 1, 0, shared)
            tokens += encoded[i][shared:]
            positions += range(shared, len(encoded[i]))
            seqs += [first[i] + 1] * (len(encoded[i]) - shared)
        ends = set(np.cumsum([len(encoded[i]) - shared for i in prompts]) - 1)
        read = self._run(tokens, positions, seqs, [j in ends for j in range(len(tokens))])
        for k, (i, _) in enumerate(rows):
            if k != first[i]:
                llama_cpp.llama_memory_seq_cp(self._memory, first[i] + 1, k + 1, -1, -1)
        logits = torch.from_numpy(read[[prompts.index(i) for i, _ in rows]])
        generators = [torch.Generator().manual_seed(row_seed(encoded[i], config, j)) for i, j in rows]
        new: list[list[int]] = [[] for _ in rows]
        logprobs: list[list[float]] = [[] for _ in rows]
        active = list(range(len(rows)))
        for step in range(config.max_tokens):
            token = next_tokens(logits, config, [generators[k] for k in active], [new[k] for k in active])
            chosen = torch.log_softmax(logits, dim=-1).gather(-1, token[:, None]).squeeze(-1)
            for a, k in enumerate(active):
                new[k].append(int(token[a]))
                logprobs[k].append(float(chosen[a]))
            active = [k for k in active if not (new[k][-1] in self.eos_ids or hits_stop(self.tokenizer, new[k],
                                                                                          config.stop))]
            if not active or step == config.max_tokens - 1:
                break
            logits = torch.from_numpy(self._run([new[k][-1] for k in active],
                                                [len(encoded[rows[k][0]]) + step for k in active],
                                                [k + 1 for k in active], [True] * len(active)))
        seconds = (time.perf_counter() - t0) / len(rows)
        completions = [cut_completion(self.tokenizer, self.eos_ids, new[k], logprobs[k], config, seconds)
                       for k in range(len(rows))]
        for c, (i, _) in zip(completions, rows, strict=True):
            c.usage.prompt_tokens = len(encoded[i])
        return completions
