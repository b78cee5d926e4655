"""``arraygrad.device``: where a tensor's data lives (``cpu``, ``cuda:0``)."""

from __future__ import annotations

__all__ = ["device", "as_device"]


class device:
    """A device type and optional index, parsed like ``torch.device``.

    >>> device("cuda:1")
    device(type='cuda', index=1)
    """

    __slots__ = ("type", "index")

    def __init__(self, type: "str | device", index: int | None = None):  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
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
            type = name
        if not type or not type.replace("_", "").isalnum():
            raise RuntimeError(f"device: invalid device string {type!r}")
        if index is not None and index < 0:
            raise RuntimeError(f"device: index must be non-negative, got {index}")
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and self.type == other.type and self.index == other.index

    def __hash__(self) -> int:
        return hash((self.type, self.index))


def as_device(value) -> device:
    """Coerce a string, int (a CUDA index, as in PyTorch) or device to a ``device``."""
    if isinstance(value, device):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return device("cuda", value)
    return device(value)
