"""Stacking along a fixed dimension: ``hstack``, ``vstack`` (``row_stack``), ``dstack`` and
``column_stack``, as PyTorch (and NumPy) define them: each input raised to at least 1, 2 or 3
dimensions (or made a column), then ``cat``. Composites: the gradient is ``cat``'s.
"""

from __future__ import annotations

from typing import Any, Callable

import arraygrad as ag
from arraygrad.tensor import Tensor

__all__ = ["hstack", "vstack", "row_stack", "dstack", "column_stack", "FUNCTIONS"]


def _tensors(op: str, tensors: Any) -> list[Tensor]:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    for t in tensors:
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument 'tensors' must be tuple of Tensors, but found "
                            f"element of type {type(t).__name__}")
    return list(tensors)


def hstack(tensors: Any) -> Tensor:
    """Join horizontally: along dimension 1, or 0 when every input is (at most) 1-D."""
    ts = [ag.atleast_1d(t) for t in _tensors("hstack", tensors)]
    return ag.cat(ts, 0 if all(t.ndim == 1 for t in ts) else 1)


def vstack(tensors: Any) -> Tensor:
    """Join vertically: inputs made at least 2-D, joined along dimension 0."""
    return ag.cat([ag.atleast_2d(t) for t in _tensors("vstack", tensors)], 0)


def row_stack(tensors: Any) -> Tensor:
    """``vstack``'s other name."""
    return ag.cat([ag.atleast_2d(t) for t in _tensors("row_stack", tensors)], 0)


def dstack(tensors: Any) -> Tensor:
    """Join depthwise: inputs made at least 3-D, joined along dimension 2."""
    return ag.cat([ag.atleast_3d(t) for t in _tensors("dstack", tensors)], 2)


def column_stack(tensors: Any) -> Tensor:
    """Join as columns: 0-D and 1-D inputs become columns, the rest join along dimension 1."""
    ts = _tensors("column_stack", tensors)
    return ag.cat([t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in ts], 1)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "hstack": hstack, "vstack": vstack, "row_stack": row_stack, "dstack": dstack,
    "column_stack": column_stack,
}
