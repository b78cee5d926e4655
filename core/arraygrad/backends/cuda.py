"""``arraygrad.backends.cuda``: PyTorch's CUDA math flags, accepted so programs run unchanged.

arraygrad computes through the backend's Array API namespace and does not choose CUDA
kernels: ``matmul.allow_tf32`` and friends, ``matmul.fp32_precision`` and the
scaled-dot-product-attention kernel switches (``enable_flash_sdp``...) are stored and read
back but change no computation (no-ops here): arraygrad's ``scaled_dot_product_attention``
is always the math formulation.
"""

from __future__ import annotations

import contextlib
import enum
import warnings
from typing import Any, Iterator

from arraygrad.backends.flag_state import get_precision, set_precision

__all__ = ["matmul", "is_built", "SDPBackend", "enable_flash_sdp", "flash_sdp_enabled",
           "enable_mem_efficient_sdp", "mem_efficient_sdp_enabled", "enable_math_sdp",
           "math_sdp_enabled", "enable_cudnn_sdp", "cudnn_sdp_enabled",
           "allow_fp16_bf16_reduction_math_sdp", "fp16_bf16_reduction_math_sdp_allowed",
           "sdp_kernel", "is_flash_attention_available", "is_ck_sdpa_available"]


class _MatmulFlags:
    """``backends.cuda.matmul``: ``allow_tf32``, the reduced-precision flags and
    ``fp32_precision`` (stored, no-ops)."""

    def __init__(self) -> None:
        self.allow_tf32 = False  # PyTorch's default
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True
        self.allow_fp16_accumulation = False

    @property
    def fp32_precision(self) -> str:
        """The fp32 precision of CUDA matrix products (``"none"``: as ``backends``')."""
        return get_precision("cuda.matmul")

    @fp32_precision.setter
    def fp32_precision(self, value: str) -> None:
        set_precision("cuda.matmul", value)

    def __repr__(self) -> str:
        return f"<backends.cuda.matmul allow_tf32={self.allow_tf32}>"


matmul = _MatmulFlags()


def is_built() -> bool:
    """Whether a CUDA backend is installed (registered), usable here or not."""
    from arraygrad.backends import registry

    return any(b.device_type == "cuda" for b in registry._registry().values())


class SDPBackend(enum.IntEnum):
    """The kernels of scaled dot-product attention, PyTorch's numbering
    (``torch.nn.attention.SDPBackend``)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


_sdp = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True,
        "fp16_bf16_reduction_math": False}


def enable_flash_sdp(enabled: bool) -> None:
    """Store the flash-attention switch (arraygrad always uses the math formulation)."""
    _sdp["flash"] = bool(enabled)


def flash_sdp_enabled() -> bool:
    """The flash-attention switch."""
    return _sdp["flash"]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Store the memory-efficient-attention switch."""
    _sdp["mem_efficient"] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    """The memory-efficient-attention switch."""
    return _sdp["mem_efficient"]


def enable_math_sdp(enabled: bool) -> None:
    """Store the math-attention switch."""
    _sdp["math"] = bool(enabled)


def math_sdp_enabled() -> bool:
    """The math-attention switch."""
    return _sdp["math"]


def enable_cudnn_sdp(enabled: bool) -> None:
    """Store the cuDNN-attention switch."""
    _sdp["cudnn"] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    """The cuDNN-attention switch."""
    return _sdp["cudnn"]


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    """Store whether the math attention may reduce in float16/bfloat16."""
    _sdp["fp16_bf16_reduction_math"] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    """Whether the math attention may reduce in float16/bfloat16."""
    return _sdp["fp16_bf16_reduction_math"]


def is_flash_attention_available() -> bool:
    """False: arraygrad has no flash-attention kernel."""
    return False


def is_ck_sdpa_available() -> bool:
    """False: arraygrad has no Composable Kernel attention."""
    return False


@contextlib.contextmanager
def sdp_kernel(enable_flash: bool = True, enable_math: bool = True,
               enable_mem_efficient: bool = True, enable_cudnn: bool = True) -> Iterator[None]:
    """Deprecated (PyTorch's FutureWarning): the attention switches for a ``with`` block."""
    warnings.warn("`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context "
                  "manager will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the "
                  "new context manager, with updated signature.", FutureWarning, stacklevel=3)
    saved: dict[str, Any] = dict(_sdp)
    _sdp.update(flash=bool(enable_flash), math=bool(enable_math),
                mem_efficient=bool(enable_mem_efficient), cudnn=bool(enable_cudnn))
    try:
        yield
    finally:
        _sdp.update(saved)


def __getattr__(name: str) -> Any:
    """The census's reason for a name of ``torch.backends.cuda`` arraygrad does not have."""
    from arraygrad.absences import missing_attribute
    raise missing_attribute("torch.backends.cuda", name, "arraygrad.backends.cuda")
