"""``arraygrad.backends.nnpack``: NNPACK flags, stored (arraygrad does not use NNPACK)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from arraygrad.backends.flag_state import flag_context

__all__ = ["is_available", "flags", "set_flags"]

_state = [True]


def is_available() -> bool:
    """False: arraygrad does not use NNPACK."""
    return False


def set_flags(_enabled: bool) -> tuple[Any, ...]:
    """Set whether NNPACK is enabled; returns the flag as it was."""
    orig = (_state[0],)
    _state[0] = bool(_enabled)
    return orig


def flags(enabled: bool = False) -> AbstractContextManager[None]:
    """A ``with`` block with the flag set, restored after."""
    return flag_context(set_flags, enabled)

