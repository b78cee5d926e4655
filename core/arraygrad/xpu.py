"""``arraygrad.xpu``: Intel GPUs, which no arraygrad backend serves. Each function answers as
PyTorch's build without XPU: none is available, seeding and cache emptying do nothing,
memory figures are 0, and what needs the device raises PyTorch's AssertionError."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "empty_cache",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "is_bf16_supported"]


def _without() -> AssertionError:
    return AssertionError("Torch not compiled with XPU enabled (no arraygrad backend serves "
                          "xpu devices)")


def is_available() -> bool:
    """False: no arraygrad backend serves ``xpu``."""
    return False


def device_count() -> int:
    """0."""
    return 0


def is_initialized() -> bool:
    """False."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False."""
    return False


def current_device() -> int:
    """AssertionError: there is no XPU device."""
    raise _without()


def synchronize(device: Any = None) -> None:
    """AssertionError: there is no XPU device."""
    raise _without()


def manual_seed(seed: int) -> None:
    """Does nothing (PyTorch defers it until XPU starts: never)."""


def manual_seed_all(seed: int) -> None:
    """Does nothing."""


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


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'arraygrad.xpu' has no attribute {name!r} (no arraygrad "
                         "backend serves xpu devices)")
