"""``arraygrad.backends.cudnn``: PyTorch's cuDNN flags, accepted so programs run unchanged.

arraygrad does not call cuDNN: ``benchmark``, ``deterministic``, ``enabled``,
``allow_tf32``, ``benchmark_limit``, ``depthwise_kernel`` and ``fp32_precision`` are module
attributes a program may set (plainly, with ``set_flags`` or inside ``flags()``) and read
back, and change no computation (no-ops here). ``is_available()`` is False.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.backends.flag_state import FP32Precision, flag_context, get_precision, \
    make_flag_module, set_module_flags

__all__ = ["enabled", "benchmark", "deterministic", "allow_tf32", "benchmark_limit",
           "depthwise_kernel", "is_available", "version", "is_acceptable", "flags", "set_flags",
           "conv", "rnn", "CUDNN_TENSOR_DTYPES"]

# PyTorch's defaults (a CPU build's: no benchmark limit).
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True
benchmark_limit: int | None = None
depthwise_kernel = "auto"

CUDNN_TENSOR_DTYPES = {_dt.float16, _dt.float32, _dt.float64}
"""The dtypes cuDNN takes."""

conv = FP32Precision("cudnn.conv")
"""The fp32 precision of convolutions (``conv.fp32_precision``)."""

rnn = FP32Precision("cudnn.rnn")
"""The fp32 precision of recurrent layers (``rnn.fp32_precision``)."""


def is_available() -> bool:
    """Whether cuDNN is used: never by arraygrad."""
    return False


def version() -> None:
    """The cuDNN version in use: ``None`` (none is), as PyTorch without cuDNN."""
    return None


def is_acceptable(tensor: Any) -> bool:
    """Whether cuDNN would take ``tensor``: never (arraygrad does not use cuDNN)."""
    return False


def set_flags(_enabled: bool | None = None, _benchmark: bool | None = None,
              _benchmark_limit: int | None = None, _deterministic: bool | None = None,
              _allow_tf32: bool | None = None, _fp32_precision: str | None = "none",
              _depthwise_kernel: str | None = None) -> tuple[Any, ...]:
    """Set the flags given (None: unchanged); returns the flags as they were, in this order."""
    orig = (enabled, benchmark, benchmark_limit, deterministic, allow_tf32,
            get_precision("cudnn"), depthwise_kernel)
    set_module_flags(__name__, {"enabled": _enabled, "benchmark": _benchmark,
                                "benchmark_limit": _benchmark_limit,
                                "deterministic": _deterministic, "allow_tf32": _allow_tf32,
                                "depthwise_kernel": _depthwise_kernel},
                     "cudnn", _fp32_precision)
    return orig


def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10,
          deterministic: bool = False, allow_tf32: bool = True, fp32_precision: str = "none",
          depthwise_kernel: str = "auto") -> AbstractContextManager[None]:
    """A ``with`` block with these flags, the previous ones restored after."""
    return flag_context(set_flags, enabled, benchmark, benchmark_limit, deterministic,
                        allow_tf32, fp32_precision, depthwise_kernel)


make_flag_module(__name__, "enabled", "benchmark", "deterministic", "allow_tf32",
                 "benchmark_limit", "depthwise_kernel", precision="cudnn")


def __getattr__(name: str) -> Any:
    """The census's reason for a name of ``torch.backends.cudnn`` arraygrad does not have."""
    from arraygrad.absences import missing_attribute
    raise missing_attribute("torch.backends.cudnn", name, "arraygrad.backends.cudnn")
