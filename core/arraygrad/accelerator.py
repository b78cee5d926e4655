"""``arraygrad.accelerator``: the device-agnostic accelerator API of ``torch.accelerator``.

The accelerator here is CUDA when a CUDA backend is usable (cupy on a GPU); otherwise
there is none, and ``current_accelerator()`` returns ``None`` as PyTorch does on a CPU-only
build.
"""

from __future__ import annotations

from arraygrad import cuda as _cuda
from arraygrad.device import DeviceLike, as_device, device

__all__ = [
    "is_available", "current_accelerator", "device_count", "current_device_index",
    "set_device_index", "synchronize",
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


def _require() -> None:
    if not _cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")


def current_device_index() -> int:
    """The index of the current accelerator device (always 0 here); RuntimeError without an
    accelerator, as PyTorch."""
    _require()
    return _cuda.current_device()


def set_device_index(device: DeviceLike) -> None:
    """Select the current accelerator device: only index 0 exists as "current" here."""
    _require()
    index = device if isinstance(device, int) else (as_device(device).index or 0)
    if index != 0:
        raise RuntimeError(f"set_device_index: arraygrad's current device is always 0, "
                           f"got {index} (pass device= to the factories instead)")


def synchronize(device: DeviceLike | None = None) -> None:
    """Wait for the accelerator's queued work; RuntimeError without an accelerator."""
    _require()
    _cuda.synchronize(device)
