"""``arraygrad.mtia``: Meta's MTIA accelerators, which no arraygrad backend serves. Each
function answers as PyTorch's build without MTIA: none is available, seeding does nothing,
and what needs the device raises PyTorch's RuntimeError."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "manual_seed_all", "empty_cache"]


def _without(call: str) -> RuntimeError:
    return RuntimeError(f"Cannot execute {call}() without MTIA backend (no arraygrad backend "
                        "serves mtia devices).")


def is_available() -> bool:
    """False: no arraygrad backend serves ``mtia``."""
    return False


def device_count() -> int:
    """0."""
    return 0


def is_initialized() -> bool:
    """False."""
    return False


def current_device() -> int:
    """RuntimeError: there is no MTIA device."""
    raise _without("getCurrentDevice")


def synchronize(device: Any = None) -> None:
    """RuntimeError: there is no MTIA device."""
    raise _without("getCurrentDevice")


def manual_seed(seed: int) -> None:
    """Does nothing (no MTIA generator to seed)."""


def manual_seed_all(seed: int) -> None:
    """Does nothing."""


def empty_cache() -> None:
    """RuntimeError: there is no MTIA device."""
    raise _without("emptyCache")


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'arraygrad.mtia' has no attribute {name!r} (no arraygrad "
                         "backend serves mtia devices)")
