"""``arraygrad.backends.openmp``: OpenMP, which arraygrad's own code does not use."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """False: arraygrad has no OpenMP-parallel kernels of its own."""
    return False
