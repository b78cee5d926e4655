"""``arraygrad.mps``: Apple's Metal GPUs, which no arraygrad backend serves. Each function
answers as PyTorch without an MPS device: none is available, seeding does nothing, and
what needs the device raises PyTorch's RuntimeError."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "device_count", "manual_seed", "seed", "synchronize", "empty_cache",
           "current_allocated_memory", "driver_allocated_memory"]


def _without(call: str) -> RuntimeError:
    return RuntimeError(f"Cannot execute {call}() without MPS backend (no arraygrad backend "
                        "serves mps devices).")


def is_available() -> bool:
    """False: no arraygrad backend serves ``mps``."""
    return False


def device_count() -> int:
    """0."""
    return 0


def manual_seed(seed: int) -> None:
    """Does nothing (no MPS generator to seed), as PyTorch without MPS."""


def seed() -> None:
    """RuntimeError: there is no MPS generator."""
    raise _without("getDefaultGenerator")


def synchronize() -> None:
    """RuntimeError: there is no MPS device."""
    raise _without("deviceSynchronize")


def empty_cache() -> None:
    """RuntimeError: there is no MPS device."""
    raise _without("emptyCache")


def current_allocated_memory() -> int:
    """RuntimeError: there is no MPS device."""
    raise _without("getCurrentAllocatedMemory")


def driver_allocated_memory() -> int:
    """RuntimeError: there is no MPS device."""
    raise _without("getDriverAllocatedMemory")


def __getattr__(name: str) -> Any:
    raise AttributeError(f"module 'arraygrad.mps' has no attribute {name!r} (no arraygrad "
                         "backend serves mps devices)")
