"""``arraygrad.backends.opt_einsum``: the ``opt_einsum`` contraction-order flags.

arraygrad's ``einsum`` contracts through its array library's own ``einsum`` and does not
use the ``opt_einsum`` package, so ``is_available()`` is False and the flags (``enabled``,
``strategy``) are stored and answered back."""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from typing import Any

from arraygrad.backends.flag_state import flag_context, make_flag_module

__all__ = ["is_available", "get_opt_einsum", "enabled", "strategy", "flags", "set_flags"]

enabled = False
strategy: str | None = None


def is_available() -> bool:
    """False: arraygrad's einsum does not use ``opt_einsum``."""
    return False


def get_opt_einsum() -> Any:
    """None: no ``opt_einsum`` module is in use."""
    return None


def set_flags(_enabled: bool | None = None, _strategy: str | None = None) -> tuple[Any, ...]:
    """Set the flags given (None: unchanged); returns the flags as they were."""
    module = sys.modules[__name__]
    orig = (enabled, strategy)
    if _enabled is not None:
        module.__dict__["enabled"] = _enabled
    if _strategy is not None:
        if _strategy not in ("auto", "greedy", "optimal"):
            raise ValueError(f"`strategy` must be one of the following: [auto, greedy, optimal] "
                             f"but got {_strategy}")
        module.__dict__["strategy"] = _strategy
    return orig


def flags(enabled: bool | None = None, strategy: str | None = None) -> AbstractContextManager[None]:
    """A ``with`` block with these flags, the previous ones restored after."""
    return flag_context(set_flags, enabled, strategy)


make_flag_module(__name__, "enabled", "strategy")
