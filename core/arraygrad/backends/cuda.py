"""``arraygrad.backends.cuda``: PyTorch's CUDA math flags, accepted so programs run unchanged.

arraygrad computes through the backend's Array API namespace and does not choose CUDA
kernels: ``matmul.allow_tf32`` and friends, ``matmul.fp32_precision`` and the
scaled-dot-product-attention kernel switches (``enable_flash_sdp``...) are the state
``nn.attention.sdpa_kernel`` sets too (``arraygrad.attention_backends``): arraygrad's
``scaled_dot_product_attention`` is always the math formulation, and runs while the math or
flash backend is enabled, as PyTorch's CPU build.
"""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Iterator

from arraygrad.attention_backends import SDPBackend
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


_SWITCHES = {"flash": "FLASH_ATTENTION", "mem_efficient": "EFFICIENT_ATTENTION", "math": "MATH",
             "cudnn": "CUDNN_ATTENTION"}
_fp16_bf16_reduction_math = [False]


def _set(kind: str, enabled: bool) -> None:
    from arraygrad import attention_backends as state

    state.set_enabled(getattr(SDPBackend, _SWITCHES[kind]), bool(enabled))


def _get(kind: str) -> bool:
    from arraygrad import attention_backends as state

    return getattr(SDPBackend, _SWITCHES[kind]) in state.enabled()


def enable_flash_sdp(enabled: bool) -> None:
    """Enable or disable the flash-attention backend (``nn.attention.sdpa_kernel``'s state)."""
    _set("flash", enabled)


def flash_sdp_enabled() -> bool:
    """Whether the flash-attention backend is enabled."""
    return _get("flash")


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Enable or disable the memory-efficient-attention backend."""
    _set("mem_efficient", enabled)


def mem_efficient_sdp_enabled() -> bool:
    """Whether the memory-efficient-attention backend is enabled."""
    return _get("mem_efficient")


def enable_math_sdp(enabled: bool) -> None:
    """Enable or disable the math-attention backend."""
    _set("math", enabled)


def math_sdp_enabled() -> bool:
    """Whether the math-attention backend is enabled."""
    return _get("math")


def enable_cudnn_sdp(enabled: bool) -> None:
    """Enable or disable the cuDNN-attention backend."""
    _set("cudnn", enabled)


def cudnn_sdp_enabled() -> bool:
    """Whether the cuDNN-attention backend is enabled."""
    return _get("cudnn")


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    """Store whether the math attention may reduce in float16/bfloat16."""
    _fp16_bf16_reduction_math[0] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    """Whether the math attention may reduce in float16/bfloat16."""
    return _fp16_bf16_reduction_math[0]


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
    wanted = {"flash": enable_flash, "math": enable_math, "mem_efficient": enable_mem_efficient,
              "cudnn": enable_cudnn}
    saved = {kind: _get(kind) for kind in wanted}
    for kind, on in wanted.items():
        _set(kind, on)
    try:
        yield
    finally:
        for kind, on in saved.items():
            _set(kind, on)


def __getattr__(name: str) -> Any:
    """The census's reason for a name of ``torch.backends.cuda`` arraygrad does not have."""
    from arraygrad.absences import missing_attribute
    raise missing_attribute("torch.backends.cuda", name, "arraygrad.backends.cuda")
