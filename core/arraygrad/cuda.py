"""``arraygrad.cuda``: whether a CUDA backend is usable, and device housekeeping."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.device import DeviceLike

__all__ = [
    "is_available", "device_count", "synchronize", "current_device", "manual_seed",
    "manual_seed_all",
]


def _cuda_backends() -> list[Backend]:
    from arraygrad.backends import registry

    return [b for b in registry._registry().values() if b.device_type == "cuda"]


def is_available() -> bool:
    """Whether some registered backend can run on a CUDA device here."""
    return any(bool(b.is_available()) for b in _cuda_backends())


def device_count() -> int:
    """The number of CUDA devices the first usable CUDA backend sees (0 without one)."""
    from arraygrad.backends.registry import device_count as _count

    return _count("cuda")


def current_device() -> int:
    """The default CUDA device index (always 0 here)."""
    return 0


def synchronize(device: DeviceLike | None = None) -> None:
    """Wait for queued work on a CUDA device to finish."""
    from arraygrad.backends.registry import backend_for_device

    if is_available():
        index = 0 if device is None else (device if isinstance(device, int) else None)
        backend_for_device(f"cuda:{index}" if index is not None else device).synchronize()


def manual_seed(seed: int) -> None:
    """Seed the current CUDA device's default generator (``cuda:0``), as
    ``torch.cuda.manual_seed``; does nothing without a usable CUDA backend (PyTorch defers
    the call until CUDA initialises, which here never happens)."""
    if is_available():
        _seed_device(0, seed)


def manual_seed_all(seed: int) -> None:
    """Seed the default generator of every CUDA device, as ``torch.cuda.manual_seed_all``;
    does nothing without a usable CUDA backend."""
    for index in range(device_count()):
        _seed_device(index, seed)


def _seed_device(index: int, seed: int) -> None:
    from arraygrad.random import generator_of

    generator_of(f"cuda:{index}").manual_seed(int(seed))
