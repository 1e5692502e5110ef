"""How many items of a stage may run at once: the endpoints' `max_concurrency`, or one for anything local.

A stage's items (the chains of the step-wise SE, the items of a judge, the stories of the rubric) are
independent. Sent to an OpenAI-compatible endpoint they can be in flight together, up to the endpoint's
`max_concurrency` (the backend's own semaphore keeps the requests themselves under that cap). A local
transformers model computes one call at a time on one process, so with any local language model among
those an item calls the items stay one after another, as before:

    workers = min over the item's language models m of c(m),   c(m) = max_concurrency of m's endpoint, else 1.
"""

from __future__ import annotations

WRAPPER_DEPTH = 8
"""How many `.inner` wrappers (caching, accounting) are looked through to find the model underneath."""


def endpoint_concurrency(model: object) -> int:
    """c(m): the `max_concurrency` of the HTTP endpoint behind `model` (through `.inner` wrappers); 1 for anything
    else (a local model, a scripted test backend)."""
    for _ in range(WRAPPER_DEPTH):
        if model is None:
            break
        limit = getattr(model, "max_concurrency", None)
        if isinstance(limit, int) and not isinstance(limit, bool):
            return max(1, limit)
        model = getattr(model, "inner", None)
    return 1


def item_workers(*models: object) -> int:
    """How many items may run at once when each item calls `models` (None entries are ignored): min of c(m); 1
    when no model is given."""
    limits = [endpoint_concurrency(m) for m in models if m is not None]
    return min(limits) if limits else 1
