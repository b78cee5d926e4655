"""``arraygrad.backends.mps``: Apple's Metal backend, which arraygrad has none of."""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """Whether an MPS device can be used: never (no arraygrad backend serves ``mps``)."""
    return False


def is_built() -> bool:
    """Whether MPS support is built in: it is not."""
    return False
