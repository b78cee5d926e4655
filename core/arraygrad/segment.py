"""``segment_reduce``: reduce consecutive segments of a tensor along one axis (PyTorch's
``torch.segment_reduce``), composed of differentiable ops, so gradients flow as PyTorch's."""

from __future__ import annotations

import itertools
from typing import Any

from arraygrad.creation import empty, full, full_like
from arraygrad.ops.elementwise import maximum, minimum
from arraygrad.ops.reduction import amax, amin, mean, prod, sum as _sum
from arraygrad.ops.shape import stack
from arraygrad.tensor import Tensor

__all__ = ["segment_reduce"]

_REDUCES = {"sum": "sum", "prod": "prod", "mean": "mean", "max": "amax", "amax": "amax",
            "min": "amin", "amin": "amin"}
_EMPTY = {"sum": 0.0, "prod": 1.0, "mean": float("nan"), "amax": float("-inf"),
          "amin": float("inf")}
_TYPE_NAMES = {"int32": "Int", "int64": "Long", "bool": "Bool"}


def _reduce(values: Tensor, kind: str, initial: float | None) -> Tensor:
    """One segment (its elements along dim 0) reduced, starting from ``initial`` if given."""
    count = values.shape[0]
    if count == 0:
        fill = _EMPTY[kind] if initial is None else initial
        return full(tuple(values.shape[1:]), fill, dtype=values.dtype,
                              device=values.device)
    if kind == "sum":
        out = _sum(values, 0)
        return out if initial is None else out + initial
    if kind == "prod":
        out = prod(values, 0)
        return out if initial is None else out * initial
    if kind == "mean":
        if initial is None:
            return mean(values, 0)
        return (_sum(values, 0) + initial) / count
    out = amax(values, 0) if kind == "amax" else amin(values, 0)
    if initial is None:
        return out
    bound = full_like(out, initial)
    return maximum(out, bound) if kind == "amax" else minimum(out, bound)


def segment_reduce(data: Tensor, reduce: str, *, lengths: Tensor | None = None,
                   indices: Tensor | None = None, offsets: Tensor | None = None, axis: int = 0,
                   unsafe: bool = False, initial: float | None = None) -> Tensor:
    """Reduce ``data`` over consecutive segments along ``axis``, as ``torch.segment_reduce``.

    The segments are given by ``lengths`` (their sizes) or ``offsets`` (their boundaries, which
    win when both are given), whose last dimension is ``axis``; leading dimensions of them
    give each row of ``data`` its own segments. ``reduce`` is ``sum``, ``prod``, ``mean``,
    ``max``/``amax`` or ``min``/``amin``; ``initial`` starts each reduction (and fills empty
    segments, which are otherwise 0, 1, nan, -inf or inf). ``unsafe=True`` skips the check that
    the lengths cover ``data``. Floating data only, as PyTorch's CPU kernel.
    """
    kind = _REDUCES.get(reduce)
    if kind is None:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if indices is not None and lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined.")
    if not data.dtype.is_floating_point:
        name = _TYPE_NAMES.get(data.dtype.name, data.dtype.name)
        raise NotImplementedError(f'"_segment_reduce_cpu" not implemented for \'{name}\'')
    if offsets is not None:
        lengths = offsets[..., 1:] - offsets[..., :-1]
    assert lengths is not None
    axis = axis + data.dim() if axis < 0 else axis
    if axis != lengths.dim() - 1:
        raise RuntimeError(f"segment_reduce(): Expected axis to be the last dimension of lengths "
                           f"but got {axis}.")
    table = lengths.tolist()
    rows = list(itertools.product(*(range(n) for n in lengths.shape[:-1])))
    if not unsafe:
        flat = [v for row in rows for v in _row(table, row)]
        if any(v < 0 for v in flat):
            raise RuntimeError("lengths contains negative value!")
        if any(sum(_row(table, row)) != data.shape[axis] for row in rows):
            raise RuntimeError("segment_reduce(): Expected all rows of lengths along axis to sum "
                               "to data.size(lengths.dim()-1) when !unsafe.")
    outputs = []
    for row in rows:
        along = data[row] if row else data  # the row's elements, segments along dim 0
        start = 0
        segments = []
        for n in _row(table, row):
            segments.append(_reduce(along[start:start + int(n)], kind, initial))
            start += int(n)
        outputs.append(stack(segments, 0) if segments else
                       empty((0, *along.shape[1:]), dtype=data.dtype,
                                       device=data.device))
    out = stack(outputs, 0)
    return out.reshape(*lengths.shape, *data.shape[axis + 1:])


def _row(table: Any, row: tuple[int, ...]) -> list[int]:
    for i in row:
        table = table[i]
    return [int(v) for v in table]
