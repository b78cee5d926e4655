"""What every part of ``arraygrad.cuda`` needs: whether a CUDA backend is usable, PyTorch's
refusal when none is, device indices, and a device's backend and runtime."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.backends.device_runtime import DeviceRuntime

__all__ = ["cuda_backends", "usable", "count", "require", "index_of", "backend", "runtime",
           "initialized"]

initialized = [False]  # set by the first call that needed a usable CUDA backend


def cuda_backends() -> list[Backend]:
    """The registered backends serving ``cuda`` (usable here or not), highest priority first."""
    from arraygrad.backends import registry

    found = [b for b in registry._registry().values() if b.device_type == "cuda"]
    return sorted(found, key=lambda b: -b.priority)


def usable() -> Backend | None:
    """The first usable CUDA backend, or None."""
    for b in cuda_backends():
        if b.is_available():
            return b
    return None


def count() -> int:
    """How many CUDA devices the usable CUDA backend sees (0 without one)."""
    b = usable()
    return 0 if b is None else int(b.device_count())


def _why_not() -> str:
    reasons = [f"{b.name}: {b.is_available().reason}" for b in cuda_backends()]
    return "; ".join(reasons) or "no CUDA backend is installed (pip install 'arraygrad[cupy]')"


def require() -> Backend:
    """The usable CUDA backend; without one, PyTorch's CPU build's AssertionError."""
    b = usable()
    if b is None:
        raise AssertionError(f"Torch not compiled with CUDA enabled: arraygrad has no usable "
                             f"CUDA backend here ({_why_not()})")
    initialized[0] = True
    return b


def index_of(device: Any, optional: bool = True) -> int:
    """The CUDA device index ``device`` names (None, an int, ``"cuda:1"``, a device), as
    PyTorch's ``_get_device_index``: no index means the current device."""
    from arraygrad.backends import registry
    from arraygrad.device import device as device_cls

    if device is None:
        if not optional:
            raise ValueError("Expected a torch.device with a specified index or an integer, "
                             "but got:None")
        return registry.current_index("cuda")
    if isinstance(device, bool):
        raise ValueError(f"Expected a cuda device, but got: {device}")
    if isinstance(device, int):
        return device
    if isinstance(device, str):
        device = device_cls(device)
    if not isinstance(device, device_cls):
        raise ValueError(f"Expected a cuda device, but got: {device!r}")
    if device.type != "cuda":
        raise ValueError(f"Expected a cuda device, but got: {device}")
    if device.index is None:
        if not optional:
            raise ValueError("Expected a torch.device with a specified index or an integer, "
                             f"but got:{device}")
        return registry.current_index("cuda")
    return device.index


def backend(device: Any = None) -> Backend:
    """The CUDA backend instance of ``device`` (the current device by default)."""
    index = index_of(device)
    b = require()
    n = b.device_count()
    if not 0 <= index < n:
        raise RuntimeError(f"CUDA error: invalid device ordinal {index} ({n} device(s))")
    return b.for_device(index)


def runtime(device: Any = None) -> DeviceRuntime:
    """The runtime services (memory pool, properties, streams) of ``device``'s backend."""
    b = backend(device)
    rt = b.runtime()
    if rt is None:
        raise RuntimeError(f"the CUDA backend {b.name!r} has no runtime services "
                           "(Backend.runtime() returned None)")
    return rt
