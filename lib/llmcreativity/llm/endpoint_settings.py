"""The run-wide settings of every endpoint role: where its key is, and how many of its requests may be in flight.

`api_key_env` names the environment variable holding an endpoint's key (the key itself is never printed, stored
or hashed); `max_concurrency` bounds the requests in flight to one endpoint. `llmcreativity run -p api_key_env NAME
-p max_concurrency N` sets them for every stage (`-p STAGE.NAME` for one); the runner passes them to each stage
kernel through its context (`context.KernelContext`), and there they are the defaults of `roles.get_role_backend` and
`roles.get_role_embedder` (`run_api_key_env`, `run_max_concurrency`). Unset, they are `ENDPOINT_DEFAULTS`.

Both are operational: neither is part of a cache key, a model's identity or a prompt, so no model call depends on
them, and a record is replayed whatever they were (`pipeline.record_export.check_parameters`).
"""

from __future__ import annotations

import re
from typing import Any

from ..context import kernel_context, variable

ENDPOINT_DEFAULTS: dict[str, Any] = {"api_key_env": "OPENAI_API_KEY", "max_concurrency": 8}
"""The endpoint settings (each a field of the kernel context, `context.KernelContext`), as they are when no `-p`
gives them."""
MAX_CONCURRENCY_RANGE = (1, 256)
"""Inclusive bounds of `max_concurrency`."""

_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_endpoint_setting(name: str, value: Any) -> Any:
    """`value` of endpoint setting `name` as it is used (`max_concurrency` an int), else a ValueError naming the
    setting and what it accepts.

    >>> check_endpoint_setting("max_concurrency", "32"), check_endpoint_setting("api_key_env", "MY_KEY")
    (32, 'MY_KEY')
    """
    if name == "api_key_env":
        if not isinstance(value, str) or not _VARIABLE.fullmatch(value):
            # the value is not shown: it may be the key itself, given by mistake
            raise ValueError("api_key_env is not the name of an environment variable (letters, digits and _); "
                             "give the variable's name, never the key itself")
        return value
    if name == "max_concurrency":
        low, high = MAX_CONCURRENCY_RANGE
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = None
        if number is None or isinstance(value, (bool, float)) or not low <= number <= high:
            raise ValueError(f"max_concurrency={value!r}: give a whole number in [{low}, {high}]")
        return number
    raise ValueError(f"{name!r} is not an endpoint setting: choose one of {list(ENDPOINT_DEFAULTS)}")


def _run_endpoint_setting(name: str) -> Any:
    """Endpoint setting `name` from the kernel context (`ENDPOINT_DEFAULTS` when unset), checked."""
    value = getattr(kernel_context(), name) or ENDPOINT_DEFAULTS[name]
    try:
        return check_endpoint_setting(name, value)
    except ValueError as e:
        raise ValueError(f"${variable(name)}: {e} (or unset it for {ENDPOINT_DEFAULTS[name]!r})") from None


def run_api_key_env() -> str:
    """The run's key variable: the context's `api_key_env` (`$LLMCREATIVITY_API_KEY_ENV`), "OPENAI_API_KEY" when
    unset."""
    name: str = _run_endpoint_setting("api_key_env")
    return name


def run_max_concurrency() -> int:
    """The run's most requests in flight per endpoint: the context's `max_concurrency`
    (`$LLMCREATIVITY_MAX_CONCURRENCY`), 8 when unset."""
    most: int = _run_endpoint_setting("max_concurrency")
    return most
