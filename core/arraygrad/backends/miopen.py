"""``arraygrad.backends.miopen``: AMD's MIOpen flags, stored (arraygrad does not use MIOpen)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from arraygrad.backends.flag_state import flag_context, make_flag_module, set_module_flags

__all__ = ["immediate", "flags", "set_flags"]

immediate = False


def set_flags(_immediate: bool | None = None) -> tuple[Any, ...]:
    """Set ``immediate`` (None: unchanged); returns the flags as they were."""
    orig = (immediate,)
    set_module_flags(__name__, {"immediate": _immediate})
    return orig


def flags(immediate: bool = False) -> AbstractContextManager[None]:
    """A ``with`` block with ``immediate`` set, restored after."""
    return flag_context(set_flags, immediate)


make_flag_module(__name__, "immediate")
