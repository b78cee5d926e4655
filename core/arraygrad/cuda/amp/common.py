"""``arraygrad.cuda.amp.common``: whether CUDA mixed precision cannot work here."""

from __future__ import annotations

__all__ = ["amp_definitely_not_available"]


def amp_definitely_not_available() -> bool:
    """True when there is no usable CUDA backend (CUDA autocast then runs disabled)."""
    from arraygrad import cuda

    return not cuda.is_available()
