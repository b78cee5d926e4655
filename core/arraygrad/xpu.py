"""``arraygrad.xpu``: Intel GPUs, which no arraygrad backend serves. Each function answers as
PyTorch's build without XPU: none is available, seeding and cache emptying do nothing,
memory figures are 0, and what needs the device raises PyTorch's AssertionError."""

from __future__ import annotations

from typing import Any

from arraygrad._unserved_device import (
    device_count, is_available, is_initialized, manual_seed, manual_seed_all, module_getattr,
)

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "is_bf16_supported"]


def _without() -> AssertionError:
    return AssertionError("Torch not compiled with XPU enabled (no arraygrad backend serves "
                          "xpu devices)")


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False."""
    return False


def current_device() -> int:
    """AssertionError: there is no XPU device."""
    raise _without()


def synchronize(device: Any = None) -> None:
    """AssertionError: there is no XPU device."""
    raise _without()


def seed() -> None:
    """Does nothing."""


def seed_all() -> None:
    """Does nothing."""


def empty_cache() -> None:
    """Does nothing: no XPU memory is held."""


def memory_allocated(device: Any = None) -> int:
    """0."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """0."""
    return 0


def memory_reserved(device: Any = None) -> int:
    """0."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """0."""
    return 0


__getattr__ = module_getattr("xpu")
