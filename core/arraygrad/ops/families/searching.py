"""Searching and counting: ``nonzero``/``argwhere``, ``unique``/``unique_consecutive``,
``bincount``, ``histc``, ``searchsorted``/``bucketize``.

None of them is differentiable (as in PyTorch): their results are integer positions or
counts, or (``unique``) values PyTorch gives no gradient either. All go through
``backend.xp`` and the backend's ``scatter_add``.
"""

from __future__ import annotations

import math
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.value_checks import require_values
from arraygrad.tensor import Tensor, _wrap_dim, wrap

__all__ = ["nonzero", "argwhere", "unique", "unique_consecutive", "bincount", "histc",
           "searchsorted", "bucketize"]


def _tensor(op: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(x).__name__}")
    return x


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of the nonzero entries: an ``(n, ndim)`` int64 tensor, or with
    ``as_tuple=True`` one 1-D tensor per dimension (a 0-d input counts as 1-D)."""
    input = _tensor("nonzero", input)
    xp, backend = input._backend.xp, input._backend
    data = input._data
    if as_tuple:
        found = xp.nonzero(xp.reshape(data, (1,)) if data.ndim == 0 else data)
        return tuple(wrap(xp.astype(f, xp.int64), backend) for f in found)
    if data.ndim == 0:
        n = 1 if bool(data != 0) else 0
        return wrap(xp.zeros((n, 0), dtype=xp.int64), backend)
    found = xp.nonzero(data)
    return wrap(xp.stack([xp.astype(f, xp.int64) for f in found], axis=1), backend)


def argwhere(input: Tensor) -> Tensor:
    """``nonzero(input)``: the ``(n, ndim)`` indices of the nonzero entries."""
    return nonzero(input)


def _groups(xp: Any, backend: Any, rows: Any, sort: bool) -> tuple[Any, Any, Any]:
    """For ``rows`` (``(n, k)``): the distinct rows (first of each run, after sorting when
    ``sort``), each row's group number, and each group's size."""
    n = rows.shape[0]
    order = xp.arange(n, dtype=xp.int64)
    if sort:  # lexicographic: stable sorts from the last column to the first
        for c in range(rows.shape[1] - 1, -1, -1):
            col = xp.take(rows[:, c], order, axis=0)
            order = xp.take(order, xp.argsort(col, stable=True), axis=0)
    ordered = xp.take(rows, order, axis=0)
    if n == 0:
        empty = xp.zeros((0,), dtype=xp.int64)
        return ordered, empty, empty
    change = xp.any(ordered[1:, ...] != ordered[:-1, ...], axis=1)
    starts = xp.concat([xp.ones((1,), dtype=xp.bool), change])
    gid = xp.cumulative_sum(xp.astype(starts, xp.int64)) - 1
    group = backend.scatter_add(xp.zeros((n,), dtype=xp.int64), order, gid)  # per original row
    first = xp.nonzero(starts)[0]
    counts = xp.diff(xp.concat([first, xp.asarray([n], dtype=first.dtype)]))
    return xp.take(ordered, first, axis=0), group, xp.astype(counts, xp.int64)


def _unique(op: str, input: Tensor, sort: bool, return_inverse: bool, return_counts: bool,
            dim: int | None) -> Any:
    input = _tensor(op, input)
    require_values(op, input)
    xp, backend = input._backend.xp, input._backend
    data = input._data
    if dim is None:
        rows = xp.reshape(data, (-1, 1))
        values, group, counts = _groups(xp, backend, rows, sort)
        out = xp.reshape(values, (-1,))
        inverse = xp.reshape(group, tuple(data.shape))
    else:
        d = _wrap_dim(dim, max(data.ndim, 1), op)
        if data.ndim == 0:
            raise IndexError(f"{op}(): dim {dim} is out of range for a 0-d tensor")
        moved = xp.moveaxis(data, d, 0)
        rest = tuple(moved.shape[1:])
        rows = xp.reshape(moved, (moved.shape[0], math.prod(rest)))
        values, inverse, counts = _groups(xp, backend, rows, sort)
        out = xp.moveaxis(xp.reshape(values, (values.shape[0],) + rest), 0, d)
    result: list[Tensor] = [wrap(out, backend)]
    if return_inverse:
        result.append(wrap(inverse, backend))
    if return_counts:
        result.append(wrap(counts, backend))
    return result[0] if len(result) == 1 else tuple(result)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct entries (or, with ``dim``, slices along ``dim``) in ascending order, with
    optionally each entry's group (``return_inverse``) and each group's size."""
    # PyTorch's CPU unique sorts whatever ``sorted`` says; so does this one
    return _unique("unique", input, True, return_inverse, return_counts, dim)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Each run of equal consecutive entries (or slices along ``dim``) reduced to one."""
    return _unique("unique_consecutive", input, False, return_inverse, return_counts, dim)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """How many times each of ``0..max(input)`` occurs in the 1-D non-negative ``input`` (at
    least ``minlength`` bins); with ``weights``, the sum of the weights instead."""
    input = _tensor("bincount", input)
    require_values("bincount", input)
    xp, backend = input._backend.xp, input._backend
    if input.dtype.is_floating_point or input.dtype is _dt.bool:
        raise NotImplementedError(f"bincount(): not implemented for {input.dtype}")
    data = input._data
    if data.ndim != 1 or (data.shape[0] and int(xp.min(data)) < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("bincount(): minlength should be >= 0")
    n = max(int(xp.max(data)) + 1 if data.shape[0] else 0, minlength)
    idx = xp.astype(data, xp.int64)
    if weights is None or not data.shape[0]:  # PyTorch: an empty input counts in int64
        counts = xp.zeros((n,), dtype=xp.int64)
        return wrap(backend.scatter_add(counts, idx, xp.ones(idx.shape, dtype=xp.int64)), backend)
    same_backend("bincount", input, weights)
    if tuple(weights._data.shape) != tuple(data.shape):
        raise RuntimeError("bincount(): weights should be 1-d and have the same length as input")
    w = weights._data
    if not weights.dtype.is_floating_point:  # PyTorch: integer weights count in float64
        w = xp.astype(w, backend.native_dtype(_dt.float64))
    return wrap(backend.scatter_add(xp.zeros((n,), dtype=w.dtype), idx, w), backend)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range where
    ``min == max``); entries outside are ignored."""
    input = _tensor("histc", input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"histc(): \"histogram_cpu\" not implemented for {input.dtype}")
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins}")
    if min > max:
        raise RuntimeError("histc(): max must be larger than min")
    xp, backend = input._backend.xp, input._backend
    data = xp.reshape(input._data, (-1,))
    lo, hi = float(min), float(max)
    if lo == hi and data.shape[0] and backend.holds_data:  # (meta: an unknown range)
        lo, hi = float(xp.min(data)), float(xp.max(data))
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"histc(): range of [{lo}, {hi}] is not finite")
    # as PyTorch: the edges, and each entry's place between them, in the input's dtype
    left, right = xp.asarray(lo, dtype=data.dtype), xp.asarray(hi, dtype=data.dtype)
    if lo == hi:  # one value: a range of 2 around it
        left, right = left - 1, right + 1
    inside = (data >= left) & (data <= right)
    pos = xp.floor((data - left) * bins / (right - left))
    pos = xp.astype(xp.clip(xp.where(inside, pos, xp.zeros_like(pos)), 0, bins - 1), xp.int64)
    out = xp.zeros((bins,), dtype=data.dtype)
    return wrap(backend.scatter_add(out, pos, xp.astype(inside, data.dtype)), backend)


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Tensor | None = None
                 ) -> Tensor:
    """Where each of ``input`` would be inserted in ``sorted_sequence`` (1-D, or rows matching
    ``input``'s leading dimensions) to keep it sorted; ``right``/``side="right"`` place equal
    values after."""
    seq = _tensor("searchsorted", sorted_sequence)
    xp, backend = seq._backend.xp, seq._backend
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    values = xp.asarray(input, dtype=seq._data.dtype) if scalar else input._data
    if not scalar:
        same_backend("searchsorted", seq, input)
    sdata = seq._data
    if sorter is not None:
        same_backend("searchsorted", seq, sorter)
        if tuple(sorter._data.shape) != tuple(sdata.shape):
            raise RuntimeError("torch.searchsorted(): boundary and sorter must have the same size")
        sdata = xp.take_along_axis(sdata, sorter._data, axis=-1)
    if sdata.ndim != 1 and (values.ndim != sdata.ndim
                            or tuple(values.shape[:-1]) != tuple(sdata.shape[:-1])):
        raise RuntimeError(
            f"torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            f"dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(sdata.shape)} and input value tensor {list(values.shape)}")
    sd = "right" if right else "left"
    if sdata.ndim <= 1:
        flat = xp.searchsorted(xp.reshape(sdata, (-1,)), xp.reshape(values, (-1,)), side=sd)
        out = xp.reshape(flat, tuple(values.shape))
    else:
        lead = tuple(sdata.shape[:-1])
        s2 = xp.reshape(sdata, (-1, sdata.shape[-1]))
        v2 = xp.reshape(values, (-1, values.shape[-1]))
        rows = [xp.searchsorted(s2[r, :], v2[r, :], side=sd) for r in range(s2.shape[0])]
        out = xp.reshape(xp.stack(rows), lead + (values.shape[-1],))
    return wrap(xp.astype(out, xp.int32 if out_int32 else xp.int64), backend)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The bucket of each of ``input`` given the sorted 1-D ``boundaries``: ``i`` with
    ``boundaries[i-1] < x <= boundaries[i]`` (``<=``/``<`` swapped with ``right=True``)."""
    b = _tensor("bucketize", boundaries)
    if b._data.ndim != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got dim("
                           f"{b._data.ndim})")
    return searchsorted(b, input, out_int32=out_int32, right=right)


FUNCTIONS = {"nonzero": nonzero, "argwhere": argwhere, "unique": unique,
             "unique_consecutive": unique_consecutive, "bincount": bincount, "histc": histc,
             "searchsorted": searchsorted, "bucketize": bucketize}
METHODS = {"nonzero": nonzero, "argwhere": argwhere, "unique": unique,
           "unique_consecutive": unique_consecutive, "bincount": bincount, "histc": histc}
