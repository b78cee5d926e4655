"""``arraygrad.backends.mps``: Apple's Metal backend, which arraygrad has none of."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "is_built", "is_macos_or_newer", "is_macos13_or_newer"]


def is_available() -> bool:
    """Whether an MPS device can be used: never (no arraygrad backend serves ``mps``)."""
    return False


def is_built() -> bool:
    """Whether MPS support is built in: it is not."""
    return False


def is_macos_or_newer(major: int, minor: int) -> bool:
    """RuntimeError, as PyTorch without MPS: the check needs the MPS backend."""
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def is_macos13_or_newer(minor: int = 0) -> bool:
    """RuntimeError, as PyTorch without MPS: the check needs the MPS backend."""
    raise RuntimeError("Cannot execute isOnMacOSorNewer() without MPS backend.")


def __getattr__(name: str) -> Any:
    """The census's reason for a name of ``torch.backends.mps`` arraygrad does not have."""
    from arraygrad.absences import missing_attribute
    raise missing_attribute("torch.backends.mps", name, "arraygrad.backends.mps")
