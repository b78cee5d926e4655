"""The 2-norm of a whole array (``clip_grad_norm_``'s per-gradient norms), as NumPy's own
``linalg.vector_norm`` computes it, without its Python layers (about 10 us a call on a small
array: axis normalisation, a transpose, a reshape, two reductions)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["vector_norm"]

_WIDE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def vector_norm(x: Any, axis: Any, keepdims: bool, ord: float) -> Any:
    """The ``ord`` 2 norm of a whole float32/float64 array, NumPy's value bit for bit: for no
    axis or every axis in order (what the core passes for a whole tensor) NumPy reshapes the
    array to one row in C order and takes the square root of its pairwise sum of squares,
    and so does this. ``NotImplemented`` for anything else (the portable
    ``xp.linalg.vector_norm`` computes it)."""
    if ord != 2 or type(x) is not np.ndarray or x.dtype not in _WIDE_FLOATS or (
            axis is not None and tuple(axis) != tuple(range(x.ndim))):
        return NotImplemented
    flat = x.reshape(-1)
    out = np.asarray(np.sqrt(np.add.reduce(flat * flat)))
    return out.reshape((1,) * x.ndim) if keepdims else out
