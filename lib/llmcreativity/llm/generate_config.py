"""Sampling settings shared by every backend.

The decoding controls against repetition loops (`repetition_penalty`, `frequency_penalty`, `presence_penalty`,
`no_repeat_ngram`, `min_p`) are applied by the project's own sampler (`row_sampling.next_tokens`) on the local
engines, from each row's own generated ids only; at their defaults they are off and left out of `to_dict`, so every
cache key and row seed made before they existed is unchanged. In the writing frameworks they are meant for stories
only (drafts and revisions), not for reviews, critiques and challenges: feedback is short and rarely loops, a
penalty there changes only its wording, and every framework's feedback stays decoded alike (the baselines chapter).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

DECODING_CONTROLS: dict[str, float | int] = {"repetition_penalty": 1.0, "frequency_penalty": 0.0,
                                             "presence_penalty": 0.0, "no_repeat_ngram": 0, "min_p": 0.0}
"""The decoding controls against repetition and the value at which each is off (and left out of `to_dict`)."""


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

    repetition_penalty: float = 1.0
    """CTRL's penalty (Keskar et al., 2019) theta >= 1 on every token the row has generated: its logit z becomes
    z / theta when z > 0, else z * theta; 1 is off. The prompt's tokens are never penalised."""
    frequency_penalty: float = 0.0
    """alpha >= 0 subtracted from a token's logit once per time the row has generated it (z - alpha * count);
    0 is off."""
    presence_penalty: float = 0.0
    """beta >= 0 subtracted from the logit of every token the row has generated at least once; 0 is off."""
    no_repeat_ngram: int = 0
    """k >= 2 bans the tokens that would repeat a k-gram of the row's generated ids (their logit becomes -inf);
    0 is off."""
    min_p: float = 0.0
    """Keep only tokens with probability >= min_p * (the most likely token's probability) after the temperature,
    before the nucleus (Nguyen et al., 2024); in [0, 1), 0 is off; no effect on greedy decoding."""

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
        if self.repetition_penalty < 1:
            raise ValueError(f"repetition_penalty={self.repetition_penalty!r}: must be >= 1 (1 is off; below 1 "
                             "would reward repetition)")
        for name in ("frequency_penalty", "presence_penalty"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name}={getattr(self, name)!r}: must be >= 0 (0 is off)")
        if not isinstance(self.no_repeat_ngram, int) or self.no_repeat_ngram < 0 or self.no_repeat_ngram == 1:
            raise ValueError(f"no_repeat_ngram={self.no_repeat_ngram!r}: must be 0 (off) or an integer >= 2 "
                             "(1 would ban every token once generated)")
        if not 0 <= self.min_p < 1:
            raise ValueError(f"min_p={self.min_p!r}: must lie in [0, 1) (0 is off)")

    def merge(self, **changes: Any) -> GenerateConfig:
        """Return a copy with `changes` applied (validated again)."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON form, used in cache keys and run records; `logprobs` only when off and each decoding control
        only when on (the keys made before those fields existed, all of which had their defaults, stay valid)."""
        d = asdict(self)
        d["stop"] = list(self.stop)
        if d["logprobs"]:
            del d["logprobs"]
        for name, off in DECODING_CONTROLS.items():
            if d[name] == off:
                del d[name]
        return d

    @property
    def controls_repetition(self) -> bool:
        """True when any decoding control against repetition is on."""
        return any(getattr(self, name) != off for name, off in DECODING_CONTROLS.items())

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
