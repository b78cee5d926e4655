"""``arraygrad.backends.mkldnn``: oneDNN (MKL-DNN) flags, stored and answered: arraygrad does
not call oneDNN (``is_available()`` is False)."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from arraygrad.backends.flag_state import FP32Precision, flag_context, get_precision, \
    make_flag_module, set_module_flags

__all__ = ["is_available", "is_acl_available", "enabled", "deterministic", "allow_tf32",
           "flags", "set_flags", "verbose", "matmul", "conv", "rnn", "VERBOSE_OFF", "VERBOSE_ON",
           "VERBOSE_ON_CREATION"]

enabled = True
deterministic = False
allow_tf32: bool | None = None
VERBOSE_OFF = 0
VERBOSE_ON = 1
VERBOSE_ON_CREATION = 2

matmul = FP32Precision("mkldnn.matmul")
conv = FP32Precision("mkldnn.conv")
rnn = FP32Precision("mkldnn.rnn")


def is_available() -> bool:
    """False: arraygrad does not call oneDNN."""
    return False


def is_acl_available() -> bool:
    """False: arraygrad does not call the Arm Compute Library."""
    return False


def set_flags(_enabled: bool | None = None, _deterministic: bool | None = None,
              _allow_tf32: bool | None = None, _fp32_precision: str | None = "none") -> tuple[Any, ...]:
    """Set the flags given (None: unchanged); returns the flags as they were."""
    orig = (enabled, deterministic, allow_tf32, get_precision("mkldnn"))
    set_module_flags(__name__, {"enabled": _enabled, "deterministic": _deterministic,
                                "allow_tf32": _allow_tf32}, "mkldnn", _fp32_precision)
    return orig


def flags(enabled: bool = False, deterministic: bool = False, allow_tf32: bool = True,
          fp32_precision: str = "none") -> AbstractContextManager[None]:
    """A ``with`` block with these flags, the previous ones restored after."""
    return flag_context(set_flags, enabled, deterministic, allow_tf32, fp32_precision)


class verbose:
    """``with verbose(level):``: oneDNN's verbose output, which has nothing to show here."""

    def __init__(self, level: int) -> None:
        self.level = level

    def __enter__(self) -> "verbose":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


make_flag_module(__name__, "enabled", "deterministic", "allow_tf32", precision="mkldnn")
