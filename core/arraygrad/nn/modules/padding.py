"""Padding layers: ``ZeroPad``, ``ConstantPad``, ``ReflectionPad``, ``ReplicationPad`` and
``CircularPad``, each for 1, 2 and 3 spatial dims.

An int pads every side by that amount; a tuple is ``(left, right[, top, bottom[, front,
back]])`` as ``F.pad`` takes it. Each layer is ``F.pad`` with its mode.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.nn._functional.padding import pad
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

    _IntOrTuple = int | tuple[int, ...]

__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
]


def _amounts(padding: Any, n: int) -> tuple[int, ...]:
    """An int as ``2 * n`` copies; a sequence as a tuple (checked by ``F.pad`` in forward)."""
    if isinstance(padding, (list, tuple)):
        return tuple(padding)
    return (padding,) * (2 * n)


class _PadNd(Module):
    """``F.pad(input, self.padding, mode)`` for a fixed mode and number of dims."""

    _n = 1
    _mode = "constant"

    def __init__(self, padding: _IntOrTuple) -> None:
        super().__init__()
        self.padding = _amounts(padding, self._n)

    def forward(self, input: Tensor) -> Tensor:
        """The padded input."""
        return pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    """Pad with a constant ``value``."""

    def __init__(self, padding: _IntOrTuple, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        """The input padded with ``value``."""
        return pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with a constant ``value``."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with a constant ``value``."""

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with a constant ``value``."""

    _n = 3


class ZeroPad1d(ConstantPad1d):
    """Pad the last dimension with zeros."""

    def __init__(self, padding: _IntOrTuple) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    """Pad the last two dimensions with zeros."""

    def __init__(self, padding: _IntOrTuple) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad3d(ConstantPad3d):
    """Pad the last three dimensions with zeros."""

    def __init__(self, padding: _IntOrTuple) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    """Mirror the last dimension about its edges (edge not repeated; pad < size)."""

    _n, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Mirror the last two dimensions about their edges."""

    _n, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Mirror the last three dimensions about their edges."""

    _n, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Repeat the edge values of the last dimension."""

    _n, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Repeat the edge values of the last two dimensions."""

    _n, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Repeat the edge values of the last three dimensions."""

    _n, _mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Wrap the last dimension around (periodic padding)."""

    _n, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    """Wrap the last two dimensions around (periodic padding)."""

    _n, _mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Wrap the last three dimensions around (periodic padding)."""

    _n, _mode = 3, "circular"
