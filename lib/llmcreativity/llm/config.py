"""Sampling settings shared by every backend."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any


@dataclass(frozen=True)
class GenerateConfig:
    """Everything that changes what a model samples.

    Every backend reads the same fields; the cache key hashes all of them.
    """

    n: int = 1
    """Number of completions sampled for one prompt."""
    temperature: float = 1.0
    """Softmax temperature; 0 means greedy decoding."""
    top_p: float = 1.0
    """Nucleus sampling mass, in (0, 1]."""
    max_tokens: int = 256
    """Most new tokens per completion."""
    stop: tuple[str, ...] = field(default_factory=tuple)
    """Strings that end a completion; the stop string itself is not returned."""
    seed: int = 0
    """Random seed: the same seed, prompt and settings give the same samples."""
    logprobs: bool = True
    """Return each completion's tokens and their log-probabilities (semantic entropy weighs candidates by them).
    Callers that only read the text (writers, judges' replies) turn it off: then an endpoint is not asked for them
    and returns none, while the local engines, which compute them anyway, still return them (a recorded sample is
    checked by teacher-forcing its tokens, `spot_check`) (a llama-cpp-python server sorts the whole
    vocabulary in Python for every generated token's log-probability, which costs more than decoding the token, and
    hosted APIs charge for them)."""

    def __post_init__(self) -> None:
        given: object = self.stop  # a caller may give one string or a list: stored as a tuple
        if isinstance(given, str) or isinstance(given, list):
            object.__setattr__(self, "stop", (given,) if isinstance(given, str) else tuple(given))
        if not isinstance(self.n, int) or self.n < 1:
            raise ValueError(f"n={self.n!r}: the number of samples must be an integer >= 1")
        if self.temperature < 0:
            raise ValueError(f"temperature={self.temperature!r}: must be >= 0 (0 means greedy)")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p={self.top_p!r}: must lie in (0, 1]")
        if not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ValueError(f"max_tokens={self.max_tokens!r}: must be an integer >= 1")

    def merge(self, **changes: Any) -> GenerateConfig:
        """Return a copy with `changes` applied (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form, used in cache keys and run records; `logprobs` only when off (the keys made before the
        field existed, all of which had them, stay valid)."""
        d = asdict(self)
        d["stop"] = list(self.stop)
        if d["logprobs"]:
            del d["logprobs"]
        return d

    def to_flat(self, *, omit: tuple[str, ...] = (), rename: dict[str, str] | None = None) -> dict[str, Any]:
        """The fields as flat plain JSON, for a record that stores them beside its own settings.

        `omit` drops fields, `rename` maps field -> stored key, and `stop` is stored only when set.
        """
        names = rename or {}
        return {names.get(k, k): v for k, v in self.to_dict().items() if k not in omit and (k != "stop" or v)}

    @classmethod
    def from_flat(cls, d: dict[str, Any], *,
                  rename: dict[str, str] | None = None) -> tuple[GenerateConfig, dict[str, Any]]:
        """Inverse of `to_flat`: the config read from `d`'s sampling keys, and the keys left over."""
        stored = {(rename or {}).get(f.name, f.name): f.name for f in fields(cls)}
        ours = {stored[k]: v for k, v in d.items() if k in stored}
        ours["stop"] = tuple(ours.get("stop", ()))
        return cls(**ours), {k: v for k, v in d.items() if k not in stored}
