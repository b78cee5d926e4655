"""``arraygrad.cuda.nvtx``: NVTX ranges and markers, which profilers such as Nsight Systems
show on their timeline (through the CUDA backend: CuPy's ``cupy.cuda.nvtx``). Without a
usable CUDA backend each raises PyTorch's CPU build's RuntimeError."""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

from arraygrad.cuda import _device

__all__ = ["range_push", "range_pop", "mark", "range"]

_depth = [0]


def _runtime() -> Any:
    if _device.usable() is None:
        raise RuntimeError("NVTX functions not installed. Are you sure you have a CUDA build? "
                           "(arraygrad has no usable CUDA backend here)")
    return _device.runtime()


def range_push(msg: str) -> int:
    """Open a nested range named ``msg``; returns its depth (0 for the outermost)."""
    _runtime().nvtx_range_push(msg)
    _depth[0] += 1
    return _depth[0] - 1


def range_pop() -> int:
    """Close the innermost range; returns the depth it had."""
    _runtime().nvtx_range_pop()
    _depth[0] -= 1
    return _depth[0]


def mark(msg: str) -> None:
    """An instantaneous marker named ``msg``."""
    _runtime().nvtx_mark(msg)


@contextlib.contextmanager
def range(msg: str, *args: Any, **kwargs: Any) -> Iterator[None]:  # noqa: A001 - PyTorch's name
    """A range named ``msg.format(*args, **kwargs)`` around the ``with`` block."""
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
