"""The one check every device-touching ``arraygrad.accelerator`` function makes first."""

from __future__ import annotations

__all__ = ["require"]


def require() -> None:
    """RuntimeError, PyTorch's words, when there is no accelerator (no usable CUDA backend)."""
    from arraygrad import cuda

    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
