"""``arraygrad.backends.kleidiai``: Arm's KleidiAI kernels, which arraygrad does not use."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """False: arraygrad does not use KleidiAI."""
    return False
