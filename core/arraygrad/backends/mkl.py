"""``arraygrad.backends.mkl``: Intel MKL, which arraygrad does not link (its array library
may; arraygrad does not call it directly)."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "verbose", "VERBOSE_OFF", "VERBOSE_ON"]

VERBOSE_OFF = 0
VERBOSE_ON = 1


def is_available() -> bool:
    """False: arraygrad does not call MKL."""
    return False


class verbose:
    """``with verbose(level):``: MKL's verbose output, which has nothing to show here (the
    block runs unchanged)."""

    def __init__(self, enable: int) -> None:
        self.enable = enable

    def __enter__(self) -> "verbose":
        return self

    def __exit__(self, *exc: Any) -> None:
        return None
