"""``arraygrad.device``: where a tensor's data lives (``cpu``, ``cuda:0``)."""

from __future__ import annotations

from typing import Union

__all__ = ["device", "as_device", "DeviceLike", "set_default_device", "get_default_device"]


class device:
    """A device type and optional index, parsed like ``torch.device``.

    >>> device("cuda:1")
    device(type='cuda', index=1)
    """

    __slots__ = ("type", "index")
    type: str
    index: int | None

    def __init__(self, type: str | device, index: int | None = None):  # noqa: A002
        name: str
        if isinstance(type, device):
            name, index = type.type, type.index if index is None else index
        elif not isinstance(type, str):
            raise TypeError(f"device: expected a string or device, got {type!r}")
        else:
            name, sep, idx = type.partition(":")
            if sep:
                if index is not None:
                    raise RuntimeError(f"device: index given twice in {type!r}")
                if not idx.isdigit():
                    raise RuntimeError(f"device: invalid device string {type!r}")
                index = int(idx)
        if not name or not name.replace("_", "").isalnum():
            raise RuntimeError(f"device: invalid device string {name!r}")
        if index is not None and index < 0:
            raise RuntimeError(f"device: index must be non-negative, got {index}")
        self.type = name
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self) -> device:
        """``with device("meta"): model = Net()``: inside the block, factories given no
        ``device=`` allocate on this device (``set_default_device``), as ``torch.device``'s
        context; the previous default comes back on exit."""
        _outer_defaults.append(_default_device)
        set_default_device(self)
        return self

    def __exit__(self, *exc: object) -> None:
        global _default_device
        _default_device = _outer_defaults.pop()


# What a ``device=`` argument accepts, as torch's ``_device``: a device, a string, a CUDA index.
DeviceLike = Union[device, str, int]


def as_device(value: DeviceLike) -> device:
    """Coerce a string, int (a CUDA index, as in PyTorch) or device to a ``device``."""
    if isinstance(value, device):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return device("cuda", value)
    if not isinstance(value, str):  # the same error device() gives for a bool or other object
        raise TypeError(f"device: expected a string or device, got {value!r}")
    return device(value)


_default_device: device | None = None  # None: the CPU (as PyTorch without set_default_device)
_outer_defaults: list[device | None] = []  # the defaults ``with device(...)`` blocks replaced
_device_cls = device  # the class, under a name PyTorch's ``device`` parameter below does not shadow


def set_default_device(device: DeviceLike | None) -> None:
    """Make factories (``zeros``, ``tensor``, ``rand``...) allocate on ``device`` when they are
    given no ``device=``, as ``torch.set_default_device``; ``None`` restores the CPU.

    A CUDA device without an index means the current one (``cuda:0``), as in PyTorch.
    """
    global _default_device
    if device is None:
        _default_device = None
        return
    dev = as_device(device)
    if dev.type == "cuda" and dev.index is None:
        dev = _device_cls("cuda", 0)
    _default_device = dev


def get_default_device() -> device:
    """The device factories allocate on when given no ``device=`` (``cpu`` unless set)."""
    return _device_cls("cpu") if _default_device is None else _default_device


def explicit_default_device() -> device | None:
    """The device ``set_default_device`` set, or None (the CPU) when none is set."""
    return _default_device
