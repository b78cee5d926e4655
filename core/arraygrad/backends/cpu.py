"""``arraygrad.backends.cpu``: which vector instructions the CPU kernels were chosen for."""

from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """``"DEFAULT"``: arraygrad has no CPU kernels of its own to choose by instruction set (its
    array library chooses its own), which is PyTorch's answer without vectorised kernels."""
    return "DEFAULT"
