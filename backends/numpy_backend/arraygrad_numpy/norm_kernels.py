"""The 2-norm of a whole array (``clip_grad_norm_``'s per-gradient norms), as NumPy's own
``linalg.norm`` computes it, without ``linalg.vector_norm``'s Python layers (about 10 us a
call on a small array: axis normalisation, a transpose, a reshape, two reductions)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["vector_norm"]

_WIDE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def vector_norm(x: Any, axis: Any, keepdims: bool, ord: float) -> Any:
    """``sqrt(x . x)`` over the whole of a float32/float64 array for ``ord`` 2 and no axis
    (or every axis, which the core passes as distinct in-range integers):
    the same products and order as ``numpy.linalg.norm`` (the array raveled in memory order,
    one BLAS dot), so the value is NumPy's bit for bit; ``NotImplemented`` for anything
    else (the portable ``xp.linalg.vector_norm`` computes it)."""
    if ord != 2 or type(x) is not np.ndarray or x.dtype not in _WIDE_FLOATS or (
            axis is not None and len(axis) != x.ndim):
        return NotImplemented
    flat = x.ravel(order="K")
    out = np.asarray(np.sqrt(np.dot(flat, flat)))
    return out.reshape((1,) * x.ndim) if keepdims else out
