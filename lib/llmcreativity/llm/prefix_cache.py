"""Key/value states of token prefixes, kept so that prompts which start alike are read once.

In a causal LM the key/value state at position t depends only on the tokens x_1..x_t, so the state
of a prompt x cut to its first L positions is exactly the state of the prefix x_1..x_L. A stored
state therefore serves any later prompt y that shares its first L = lcp(x, y) tokens: only
y_{L+1}.. remain to be computed. The store is a small LRU keyed by token ids, so callers need not
know which of their prompts share a prefix (the five rubric dimensions of one story, the agents of
one judge panel, the two directions of one entailment check).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import torch

KV = tuple[tuple[torch.Tensor, torch.Tensor], ...]
"""Per layer (keys, values), each of shape (1, kv_heads, L, head_dim), for a prefix of L tokens."""


def common_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """The number L of leading tokens that `a` and `b` share (a_i = b_i for i < L)."""
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n


def batch_prefix_length(seqs: Sequence[Sequence[int]]) -> int:
    """The longest token prefix that every sequence of `seqs` starts with (0 for an empty list)."""
    if not seqs:
        return 0
    first = seqs[0]
    length = len(first)
    for s in seqs[1:]:
        length = min(length, common_prefix_length(first[:length], s))
    return length


def cut(kv: KV, length: int) -> KV:
    """The state of the first `length` positions (views, no copy)."""
    return tuple((k[:, :, :length], v[:, :, :length]) for k, v in kv)


class PrefixCache:
    """An LRU of prefix states keyed by their token ids; `longest(ids)` finds the best stored start of `ids`."""

    def __init__(self, max_entries: int = 16):
        if max_entries < 1:
            raise ValueError(f"max_entries={max_entries!r}: keep at least one prefix state")
        self.max_entries = max_entries
        self._states: OrderedDict[tuple[int, ...], KV] = OrderedDict()
        self.hits = 0
        """Calls of `longest` that found a shared start of at least one token."""
        self.reused_tokens = 0
        """Tokens whose state came from the store instead of the model, summed over calls."""

    def __len__(self) -> int:
        return len(self._states)

    def longest(self, ids: Sequence[int]) -> tuple[int, KV | None]:
        """(L, state of ids[:L]) for the stored entry sharing the most leading tokens with `ids`; (0, None) if none."""
        best_len, best_key = 0, None
        for key in self._states:
            length = common_prefix_length(key, ids)
            if length > best_len:
                best_len, best_key = length, key
        if best_key is None:
            return 0, None
        self._states.move_to_end(best_key)
        self.hits += 1
        self.reused_tokens += best_len
        return best_len, cut(self._states[best_key], best_len)

    def put(self, ids: Sequence[int], kv: KV) -> None:
        """Store the state of `ids` (evicting the least recently used entry when full)."""
        key = tuple(ids)
        if any(k.shape[2] != len(key) for k, _ in kv):
            raise ValueError(f"state covers {kv[0][0].shape[2]} positions, ids has {len(key)} tokens")
        self._states[key] = kv
        self._states.move_to_end(key)
        while len(self._states) > self.max_entries:
            self._states.popitem(last=False)

    def clear(self) -> None:
        """Forget every stored state."""
        self._states.clear()
