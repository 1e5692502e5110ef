"""The call policy of a model wrapper: how it answers a call, and where it reports the call.

A `CachedBackend`, a `CachedEmbedder` and the NLI judge (`entropy.entailment.NLIEntailmentJudge`) each follow one
`CallPolicy`, fixed when the object is made and kept on it (`policy`, shown in its `repr`). The policy holds:

- the **mode**: the model computes every call, or the call cache answers what it holds and the model computes the
  rest, or the cache answers every call and a miss raises `CacheMiss` (a replay of a record);
- the **spot check**: where a replay files the few answered calls it computes again (`llm.spot_check`), or none;
- the **call log**: where each call is logged for `record export` (`llm.call_log`), or nowhere;
- the **usage file**: where calls, cache hits and tokens are counted (`llm.usage_file`), or nowhere;
- the **stage** named in the call log and in a replay's miss.

`CallPolicy.from_context()` reads them from the run's context (`context.kernel_context`) once, when a wrapper is made
without a policy; nothing reads the context again on a call. The runner writes the context into a stage kernel's
environment before the kernel starts, so in a run this is the stage's policy; two wrappers with different policies
can live in one process, and a variable changed after a wrapper was made does not change what it does.

The policy says how calls are answered and reported, never what they answer: it enters no model identity, no cache
key, no recorded output and no claim's `models`, so a record made under one policy replays by the same keys under
another. The chapter's provenance shows it in words (`describe`), as display only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal, get_args

from ..context import kernel_context

Mode = Literal["computed", "cached", "replay-only"]
"""How a wrapper answers a call: `computed` (no call cache: the model answers every call), `cached` (the cache
answers what it holds, the model computes and stores the rest) or `replay-only` (the cache answers every call; a
miss raises `CacheMiss`)."""

MODES: tuple[Mode, ...] = get_args(Mode)
"""The modes, in the order of `Mode`."""

_MODE_WORDS: dict[Mode, str] = {
    "computed": "computed (no call cache: the model answers every call)",
    "cached": "cached (the call cache answers what it holds; the model computes and stores the rest)",
    "replay-only": "replay-only (the record's cache answers every call; a miss stops the stage)",
}
"""Each mode in words, for the provenance."""


@dataclass(frozen=True, repr=False)
class CallPolicy:
    """How one wrapper answers and reports its calls (see the module docstring); None where nothing is reported."""

    mode: Mode = "cached"
    """`computed`, `cached` or `replay-only` (`Mode`)."""
    spot_check: Path | None = None
    """The file a replay appends its spot checks to (`llm.spot_check`); None: no answered call is computed again.
    A wrapper keeps one only in `replay-only` mode (`for_wrapper`)."""
    call_log: Path | None = None
    """The file each call is logged to (`llm.call_log`), or None: not logged."""
    usage_file: Path | None = None
    """The file the calls, cache hits and tokens are counted in (`llm.usage_file`), or None: not counted."""
    stage: str = ""
    """The stage named in the call log and in a replay's miss; empty outside a runner-started process."""
    spot_check_later: bool = False
    """A replay's drawn calls of local models are filed for the spot-check worker, not computed in this process
    (`spot_check.SpotChecker.check`; `context.KernelContext.spot_check_later`)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode={self.mode!r}: a call policy's mode is one of {list(MODES)}")

    @classmethod
    def from_context(cls) -> CallPolicy:
        """The run's policy, read from the context now (`context.kernel_context`): `replay-only` when the context
        is cache-only, else `cached`; its spot-check file, call log, usage file and stage, and whether the spot
        check is left to the worker."""
        context = kernel_context()
        return cls("replay-only" if context.cache_only else "cached", context.spot_check, context.call_log,
                   context.usage_file, context.stage or "", context.spot_check_later)

    @property
    def cache_only(self) -> bool:
        """Whether a miss raises `CacheMiss` instead of being computed (`replay-only`)."""
        return self.mode == "replay-only"

    @property
    def spot_checked(self) -> bool:
        """Whether some answered calls are computed again and compared (a `replay-only` policy with a file)."""
        return self.cache_only and self.spot_check is not None

    def for_wrapper(self, has_cache: bool, cache_only: bool | None = None) -> CallPolicy:
        """The policy a wrapper keeps, given whether it has a call cache.

        `cache_only` (when not None) sets the mode: `replay-only`, or else `cached` (`computed` without a cache).
        Without a cache a `cached` policy computes every call. A spot-check file is kept in `replay-only` mode only.
        A `replay-only` policy without a cache, or a `computed` one with a cache, is refused.
        """
        mode = self.mode
        if cache_only is not None:
            mode = "replay-only" if cache_only else "cached"
        if mode == "cached" and not has_cache:
            mode = "computed"
        if mode == "replay-only" and not has_cache:
            raise ValueError("cache_only=True (a replay-only policy) needs a cache to answer from (cache=None was "
                             "given): pass the call cache, or a policy that computes")
        if mode == "computed" and has_cache:
            raise ValueError("mode='computed' answers every call with the model, but a cache was given: pass "
                             "cache=None, or a 'cached' policy")
        return replace(self, mode=mode, spot_check=self.spot_check if mode == "replay-only" else None)

    def describe(self, show: Callable[[Path], str] = str) -> str:
        """The policy in words, for the provenance (`show` writes a path)."""
        check = (f"spot-checked (a few answered calls computed again, filed in `{show(self.spot_check)}`)"
                 if self.spot_check is not None and self.cache_only else "not spot-checked")
        log = f"logged to `{show(self.call_log)}`" if self.call_log is not None else "not logged"
        usage = f"counted in `{show(self.usage_file)}`" if self.usage_file is not None else "not counted"
        return f"{_MODE_WORDS[self.mode]}, {check}, calls {log} and {usage}"

    def __repr__(self) -> str:
        paths = ", ".join(f"{name}={None if value is None else str(value)!r}" for name, value in
                          (("spot_check", self.spot_check), ("call_log", self.call_log),
                           ("usage_file", self.usage_file)))
        return f"CallPolicy(mode={self.mode!r}, stage={self.stage!r}, {paths})"
