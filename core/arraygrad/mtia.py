"""``arraygrad.mtia``: Meta's MTIA accelerators, which no arraygrad backend serves. Each
function answers as PyTorch's build without MTIA: none is available, seeding does nothing,
and what needs the device raises PyTorch's RuntimeError."""

from __future__ import annotations

from typing import Any

from arraygrad._unserved_device import (
    cannot_execute, device_count, is_available, is_initialized, manual_seed, manual_seed_all,
    module_getattr,
)

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "manual_seed_all", "empty_cache"]


def current_device() -> int:
    """RuntimeError: there is no MTIA device."""
    raise cannot_execute("mtia", "getCurrentDevice")


def synchronize(device: Any = None) -> None:
    """RuntimeError: there is no MTIA device."""
    raise cannot_execute("mtia", "getCurrentDevice")


def empty_cache() -> None:
    """RuntimeError: there is no MTIA device."""
    raise cannot_execute("mtia", "emptyCache")


__getattr__ = module_getattr("mtia")
