"""Which CUDA device is current: ``current_device``, ``set_device`` and the ``device`` and
``device_of`` context managers of ``torch.cuda``. ``"cuda"`` without an index means the
current device (``backends.registry.set_current_index``), as in PyTorch."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.cuda import _device

if TYPE_CHECKING:
    from arraygrad.device import DeviceLike

__all__ = ["current_device", "set_device", "device", "device_of"]


def current_device() -> int:
    """The index of the current CUDA device (0 unless ``set_device`` chose another)."""
    _device.require()
    return _device.index_of(None)


def set_device(device: DeviceLike | None) -> None:
    """Make ``device`` the current CUDA device: ``"cuda"`` without an index means it from
    now on (as ``torch.cuda.set_device``). A negative index does nothing."""
    from arraygrad.backends import registry

    index = _device.index_of(device, optional=False)
    if index < 0:
        return
    _device.backend(index)  # AssertionError without CUDA, RuntimeError past the last device
    registry.set_current_index("cuda", index)


class device:
    """Context manager making CUDA device ``device`` current inside the block (``None`` or a
    negative index: does nothing)."""

    def __init__(self, device: Any) -> None:
        self.idx = -1 if device is None else _device.index_of(device, optional=True)
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx < 0:
            return
        from arraygrad.backends import registry

        _device.require()
        self.prev_idx = registry.current_index("cuda")
        if self.prev_idx != self.idx:
            set_device(self.idx)

    def __exit__(self, *exc: Any) -> None:
        if self.idx >= 0 and self.prev_idx >= 0 and self.prev_idx != self.idx:
            set_device(self.prev_idx)


class device_of(device):
    """Context manager making the tensor's CUDA device current (a CPU tensor: nothing)."""

    def __init__(self, obj: Any) -> None:
        dev = obj.device
        super().__init__(dev.index if dev.type == "cuda" and dev.index is not None else
                         (None if dev.type != "cuda" else 0))
