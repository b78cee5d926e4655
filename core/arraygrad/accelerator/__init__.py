"""``arraygrad.accelerator``: the device-agnostic accelerator API of ``torch.accelerator``.

The accelerator here is CUDA when a CUDA backend is usable (cupy on a GPU); otherwise
there is none: ``current_accelerator()`` returns ``None`` and ``device_count()`` 0, and
everything that needs a device raises PyTorch's RuntimeError ("Cannot access accelerator
device when none is available."), as PyTorch on a CPU-only build.
"""

from __future__ import annotations

from typing import Any

from arraygrad import cuda as _cuda
from arraygrad.accelerator._require import require as _require
from arraygrad.accelerator.memory import (
    empty_cache, empty_host_cache, get_memory_info, max_memory_allocated, max_memory_reserved,
    memory_allocated, memory_reserved, memory_stats, reset_accumulated_memory_stats,
    reset_peak_memory_stats,
)
from arraygrad.device import DeviceLike, device
from arraygrad.streams import Stream

__all__ = [
    "is_available", "current_accelerator", "device_count", "current_device_index",
    "current_device_idx", "set_device_index", "set_device_idx", "device_index", "synchronize",
    "current_stream", "set_stream", "get_device_capability", "empty_cache", "empty_host_cache",
    "get_memory_info", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
    "memory_reserved", "memory_stats", "reset_accumulated_memory_stats",
    "reset_peak_memory_stats",
]


def is_available() -> bool:
    """Whether an accelerator (a usable CUDA backend) is present."""
    return _cuda.is_available()


def current_accelerator(check_available: bool = False) -> device | None:
    """``device('cuda')`` when a CUDA backend is usable, else ``None``.

    ``check_available`` is accepted for PyTorch's signature: the accelerator is only ever
    reported when it is usable, so it changes nothing.
    """
    return device("cuda") if _cuda.is_available() else None


def device_count() -> int:
    """The number of accelerator devices (0 without an accelerator)."""
    return _cuda.device_count() if _cuda.is_available() else 0


def current_device_index() -> int:
    """The index of the current accelerator device; RuntimeError without an accelerator."""
    _require()
    return _cuda.current_device()


current_device_idx = current_device_index  # PyTorch's older name, kept as an alias


def set_device_index(device: DeviceLike, /) -> None:
    """Make ``device`` the current accelerator device (``torch.cuda.set_device``'s effect)."""
    _require()
    _cuda.set_device(device)


set_device_idx = set_device_index  # PyTorch's older name, kept as an alias


class device_index:
    """Context manager making accelerator device ``device`` current inside the block
    (``None``: no change)."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device
        self._inner: Any = None

    def __enter__(self) -> None:
        if self.idx is not None:
            _require()
            self._inner = _cuda.device(self.idx)
            self._inner.__enter__()

    def __exit__(self, *exc_info: object) -> None:
        if self._inner is not None:
            self._inner.__exit__(*exc_info)
            self._inner = None


def synchronize(device: DeviceLike | None = None, /) -> None:
    """Wait for the accelerator's queued work; RuntimeError without an accelerator."""
    _require()
    _cuda.synchronize(device)


def current_stream(device: DeviceLike | None = None, /) -> Stream:
    """The accelerator device's current stream; RuntimeError without an accelerator."""
    _require()
    return _cuda.current_stream(device)


def set_stream(stream: Stream) -> None:
    """Make ``stream`` current (and its device the current device)."""
    _require()
    _cuda.set_device(stream.device)
    _cuda.set_stream(stream)


def get_device_capability(device: DeviceLike | None = None, /) -> dict[str, Any]:
    """What the accelerator device supports: ``{"supported_dtypes": {...}}``, the dtypes
    tensors can have on it (its backend's)."""
    _require()
    from arraygrad.cuda import _device

    return {"supported_dtypes": set(_device.backend(device).supported_dtypes())}


def __getattr__(name: str) -> Any:
    """The census's reasons for the names arraygrad does not have (``Graph``, ``graphs``)."""
    from arraygrad.absences import missing_attribute
    raise missing_attribute("torch.accelerator", name, "arraygrad.accelerator")
