"""``arraygrad.backends.cuda``: PyTorch's CUDA math flags, accepted so programs run unchanged.

arraygrad computes through the backend's Array API namespace and does not choose CUDA
kernels: these flags are stored and read back but change no computation (no-ops here).
"""

from __future__ import annotations

__all__ = ["matmul", "is_built"]


class _MatmulFlags:
    """``backends.cuda.matmul``: ``allow_tf32`` and the reduced-precision flags (no-ops)."""

    def __init__(self) -> None:
        self.allow_tf32 = False  # PyTorch's default
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    def __repr__(self) -> str:
        return f"<backends.cuda.matmul allow_tf32={self.allow_tf32}>"


matmul = _MatmulFlags()


def is_built() -> bool:
    """Whether a CUDA backend is installed (registered), usable here or not."""
    from arraygrad.backends import registry

    return any(b.device_type == "cuda" for b in registry._registry().values())
