"""``arraygrad.accelerator.memory``: the accelerator's memory figures (``torch.accelerator
.memory``), those of ``arraygrad.cuda``; each raises PyTorch's RuntimeError without an
accelerator."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from arraygrad import cuda as _cuda
from arraygrad.accelerator._require import require

__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats"]


def empty_cache() -> None:
    """Give the memory pool's unused cached blocks back to the device."""
    require()
    _cuda.empty_cache()


def empty_host_cache() -> None:
    """Free cached pinned host memory: arraygrad caches none, so only the check is made."""
    require()


def get_memory_info(device_index: Any = None, /) -> tuple[int, int]:
    """``(free, total)`` device memory in bytes."""
    require()
    return _cuda.mem_get_info(device_index)


def memory_stats(device_index: Any = None, /) -> "OrderedDict[str, Any]":
    """The memory pool's statistics (``arraygrad.cuda.memory_stats``)."""
    require()
    return OrderedDict(_cuda.memory_stats(device_index))


def memory_allocated(device_index: Any = None, /) -> int:
    """Bytes the device's tensors use now."""
    require()
    return _cuda.memory_allocated(device_index)


def max_memory_allocated(device_index: Any = None, /) -> int:
    """The peak of ``memory_allocated``."""
    require()
    return _cuda.max_memory_allocated(device_index)


def memory_reserved(device_index: Any = None, /) -> int:
    """Bytes the memory pool holds from the device now."""
    require()
    return _cuda.memory_reserved(device_index)


def max_memory_reserved(device_index: Any = None, /) -> int:
    """The peak of ``memory_reserved``."""
    require()
    return _cuda.max_memory_reserved(device_index)


def reset_peak_memory_stats(device_index: Any = None, /) -> None:
    """Start the peaks over from the current figures."""
    require()
    _cuda.reset_peak_memory_stats(device_index)


def reset_accumulated_memory_stats(device_index: Any = None, /) -> None:
    """Reset the accumulated counters (arraygrad keeps none)."""
    require()
    _cuda.reset_accumulated_memory_stats(device_index)
