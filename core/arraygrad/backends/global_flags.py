"""``torch.backends``' own flag: the generic fp32 precision (``backends.fp32_precision``,
which the backends' and ops' ``"none"`` settings inherit), its ``set_flags`` and ``flags()``."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from arraygrad.backends.flag_state import flag_context, get_precision, make_flag_module, set_precision

__all__ = ["flags", "set_flags", "install"]


def set_flags(_fp32_precision: str | None = "none") -> tuple[Any, ...]:
    """Set the generic fp32 precision (None: unchanged); returns it as it was."""
    orig = (get_precision("generic"),)
    if _fp32_precision is not None:
        set_precision("generic", _fp32_precision)
    return orig


def flags(fp32_precision: str = "none") -> AbstractContextManager[None]:
    """A ``with`` block with the generic fp32 precision set, restored after."""
    return flag_context(set_flags, fp32_precision)


def install(package: str) -> None:
    """Give ``package`` (``arraygrad.backends``) its ``fp32_precision`` attribute."""
    make_flag_module(package, precision="generic")
