"""Advanced indexing through the standard alone: a key becomes one flat (linear) index.

The Array API standard's integer-array indexing is narrow: every axis must be
indexed by an integer array or integer (no slices, ``...`` or ``None`` beside
them), and ``__setitem__`` takes no integer arrays at all. NumPy-style keys
such as ``a[:, idx]`` or ``a[idx, :, jdx]`` are therefore lowered here to the
flat positions they select, ``lin`` (shaped like the result), so reading is
``take(reshape(x, -1), lin)`` and writing is the backend's ``scatter_add`` on
a 1-D target, both within the standard and the backend contract. The result
layout follows NumPy: the broadcast advanced dimensions replace the advanced
indices when those are adjacent, and go first otherwise.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["AlongKey", "LinearKey", "RowsKey", "linear_key"]


class LinearKey:
    """The flat positions ``lin`` (int64, result-shaped) an advanced key selects in ``shape``."""

    __slots__ = ("lin", "shape")

    def __init__(self, lin: Any, shape: tuple[Any, ...]) -> None:
        self.lin = lin
        self.shape = tuple(shape)

    def flat(self, xp: Any) -> Any:
        """``lin`` as a 1-D array."""
        return xp.reshape(self.lin, (-1,))

    def take(self, xp: Any, data: Any) -> Any:
        """``data[key]``."""
        flat = xp.take(xp.reshape(data, (-1,)), self.flat(xp), axis=0)
        return xp.reshape(flat, tuple(self.lin.shape))

    def hits(self, xp: Any, backend: Backend, dtype: Any) -> Any:
        """How many times the key selects each element of ``shape`` (flat, ``dtype``)."""
        count = xp.zeros((math.prod(self.shape),), dtype=dtype)
        ones = xp.ones((math.prod(self.lin.shape),), dtype=dtype)
        return backend.scatter_add(count, self.flat(xp), ones)

    def add_into(self, xp: Any, backend: Backend, out_flat: Any, values: Any) -> Any:
        """``out_flat[key] += values`` (repeats accumulate); returns ``out_flat``."""
        values = xp.broadcast_to(values, tuple(self.lin.shape))
        return backend.scatter_add(out_flat, self.flat(xp), xp.reshape(values, (-1,)))


class _LazyKey(LinearKey):
    """A key read without flat positions (by one library call), whose flat positions ``lin``
    are made once, by ``_flat_positions``, only when a write or a backward asks for them."""

    __slots__ = ("_xp", "_lin")

    def __init__(self, xp: Any, shape: tuple[Any, ...]) -> None:
        self.shape = tuple(shape)
        self._xp = xp
        self._lin = None

    @property
    def lin(self) -> Any:
        """The flat positions (made once, when first asked)."""
        if self._lin is None:
            self._lin = self._flat_positions(self._xp)
        return self._lin

    def _flat_positions(self, xp: Any) -> Any:
        raise NotImplementedError


class RowsKey(_LazyKey):
    """An advanced key of one integer array (1-D or more) of non-negative rows on the leading
    dimension (``x[idx]``, ``x[idx, :]``, an embedding's lookup): read with one ``take``
    along axis 0 (the general key builds and gathers a flat position per element of the
    result)."""

    __slots__ = ("rows",)

    def __init__(self, xp: Any, rows: Any, shape: tuple[Any, ...]) -> None:
        super().__init__(xp, shape)
        self.rows = rows

    def _flat_positions(self, xp: Any) -> Any:
        # each row's first flat position, plus the positions within a row: rows.shape + rest
        rest = self.shape[1:]
        inner = math.prod(rest)
        starts = xp.astype(self.rows, xp.int64) * inner
        return xp.reshape(starts, tuple(self.rows.shape) + (1,) * len(rest)) + \
            xp.reshape(xp.arange(inner, dtype=xp.int64), tuple(rest))

    def take(self, xp: Any, data: Any) -> Any:
        """``data[rows]`` (the standard's ``take`` wants 1-D indices: several dimensions of
        rows are taken flat and the result reshaped)."""
        rows = self.rows
        if rows.ndim == 1:
            return xp.take(data, rows, axis=0)
        flat = xp.take(data, xp.reshape(rows, (-1,)), axis=0)
        return xp.reshape(flat, tuple(rows.shape) + tuple(data.shape[1:]))


class AlongKey(_LazyKey):
    """``gather``'s key: an integer array ``idx`` of non-negative positions along axis ``d``
    of ``shape``, and every position of ``idx``'s extent along the other axes (at most
    ``shape``'s). Read with one ``take_along_axis`` (the general key builds an arange per
    axis and gathers flat positions)."""

    __slots__ = ("idx", "d")

    def __init__(self, xp: Any, idx: Any, d: int, shape: tuple[Any, ...]) -> None:
        super().__init__(xp, shape)
        self.idx = idx
        self.d = d

    def _flat_positions(self, xp: Any) -> Any:
        # ``idx`` times axis ``d``'s stride, plus every other axis's position times its own
        idx = self.idx
        stride = _row_major_strides(self.shape)
        lin = xp.astype(idx, xp.int64) * stride[self.d]
        for axis, size in enumerate(idx.shape):
            if axis != self.d and size > 1:
                dims = [1] * idx.ndim
                dims[axis] = size
                lin = lin + xp.reshape(xp.arange(size, dtype=xp.int64) * stride[axis],
                                       tuple(dims))
        return lin

    def take(self, xp: Any, data: Any) -> Any:
        """``take_along_axis`` of ``data`` cut to ``idx``'s extent in the other axes."""
        idx = self.idx
        d = self.d
        if idx.shape != data.shape and any(  # cut only where another axis is shorter
                size != data.shape[axis] for axis, size in enumerate(idx.shape) if axis != d):
            data = data[tuple(slice(None) if axis == d else slice(0, size)
                              for axis, size in enumerate(idx.shape))]
        return xp.take_along_axis(data, idx, axis=d)


def _row_major_strides(shape: tuple[Any, ...]) -> list[int]:
    """Each axis's step in a row-major flattening of ``shape``, in elements."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * shape[d + 1]
    return strides


def linear_key(xp: Any, shape: tuple[Any, ...], key: tuple[Any, ...]) -> LinearKey:
    """Lower a normalised key (ints, slices, None, Ellipsis, integer arrays) to a ``LinearKey``."""
    ndim = len(shape)
    consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
    full = []
    for k in key:
        if k is Ellipsis:
            full.extend([slice(None)] * (ndim - consumed))
        else:
            full.append(k)
    if not any(k is Ellipsis for k in key):  # identity: `in` would compare arrays
        full.extend([slice(None)] * (ndim - consumed))

    # Integers take part in broadcasting as 0-d advanced indices, but (PyTorch's rule, not
    # NumPy's) they select first and so do not decide where the advanced dimensions go:
    # adjacency is judged among the array indices with the integers taken out of the key.
    adv_pos = [p for p, k in enumerate(full) if k is not None and not isinstance(k, slice)]
    arr_pos = [q for q, k in enumerate(k for k in full if not isinstance(k, int))
               if k is not None and not isinstance(k, slice)]
    arrays = []
    axis = 0
    for p, k in enumerate(full):
        if k is None:
            continue
        if p in adv_pos:
            arr = xp.asarray(k, dtype=xp.int64) if isinstance(k, int) else xp.astype(k, xp.int64)
            arrays.append(xp.where(arr < 0, arr + shape[axis], arr))
        axis += 1
    if len(arrays) > 1:
        try:
            arrays = list(xp.broadcast_arrays(*arrays))
        except ValueError:  # PyTorch's error class and words, naming the index tensors' shapes
            shapes = ", ".join(str(list(getattr(k, "shape", ()))) for k in full
                               if k is not None and not isinstance(k, (slice, int)))
            raise IndexError("shape mismatch: indexing tensors could not be broadcast together "
                             f"with shapes {shapes}") from None
    adv_shape = tuple(arrays[0].shape) if arrays else ()
    adjacent = not arr_pos or arr_pos == list(range(arr_pos[0], arr_pos[-1] + 1))

    # The result's dimensions, in order: a list of ("adv",) or (size,) slots per key entry.
    out_dims = []   # sizes
    where = []      # for each key entry: index of its first output dimension
    adv_at = None
    if not adjacent:
        adv_at, out_dims = 0, list(adv_shape)
    axis = 0
    for p, k in enumerate(full):
        if k is None:
            where.append(len(out_dims))
            out_dims.append(1)
        elif isinstance(k, slice):
            where.append(len(out_dims))
            out_dims.append(len(range(*k.indices(shape[axis]))))
            axis += 1
        else:
            if adjacent and adv_at is None and (not isinstance(k, int) or not arr_pos):
                adv_at = len(out_dims)
                out_dims.extend(adv_shape)
            where.append(None)
            axis += 1
    n_out = len(out_dims)

    strides = _row_major_strides(shape)

    lin = xp.zeros(tuple(out_dims), dtype=xp.int64)
    axis = 0
    adv_iter = iter(arrays)
    for p, k in enumerate(full):
        if k is None:
            continue
        if isinstance(k, slice):
            start, stop, step = k.indices(shape[axis])
            idx = xp.arange(start, stop, step, dtype=xp.int64)
            dims = [1] * n_out
            dims[where[p]] = idx.shape[0]
            lin = lin + xp.reshape(idx, tuple(dims)) * strides[axis]
        else:
            arr = next(adv_iter)
            dims = [1] * n_out
            dims[adv_at:adv_at + len(adv_shape)] = adv_shape
            lin = lin + xp.reshape(arr, tuple(dims)) * strides[axis]
        axis += 1
    return LinearKey(lin, shape)
