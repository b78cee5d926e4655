"""``arraygrad.mps``: Apple's Metal GPUs, which no arraygrad backend serves. Each function
answers as PyTorch without an MPS device: none is available, seeding does nothing, and
what needs the device raises PyTorch's RuntimeError."""

from __future__ import annotations

from arraygrad._unserved_device import (
    cannot_execute, device_count, is_available, manual_seed, module_getattr,
)

__all__ = ["is_available", "device_count", "manual_seed", "seed", "synchronize", "empty_cache",
           "current_allocated_memory", "driver_allocated_memory"]


def seed() -> None:
    """RuntimeError: there is no MPS generator."""
    raise cannot_execute("mps", "getDefaultGenerator")


def synchronize() -> None:
    """RuntimeError: there is no MPS device."""
    raise cannot_execute("mps", "deviceSynchronize")


def empty_cache() -> None:
    """RuntimeError: there is no MPS device."""
    raise cannot_execute("mps", "emptyCache")


def current_allocated_memory() -> int:
    """RuntimeError: there is no MPS device."""
    raise cannot_execute("mps", "getCurrentAllocatedMemory")


def driver_allocated_memory() -> int:
    """RuntimeError: there is no MPS device."""
    raise cannot_execute("mps", "getDriverAllocatedMemory")


__getattr__ = module_getattr("mps")
