"""The NumPy backend's kernel for ``arraygrad.sparse``'s products: ``sparse @ dense`` as one
dense BLAS product when the sparse matrix is small, else through SciPy's sparse product when
SciPy is installed (``pip install 'arraygrad[sparse]'``).

The portable product (``arraygrad.sparse._products``) is a gather and a ``numpy.add.at`` of
``nnz * p`` terms; SciPy's product is a compiled loop, tens of times faster on a large
graph, but building its matrix costs ~40 us a call and importing ``scipy.sparse`` ~0.1 s. A
small sparse matrix (a toy graph's adjacency: ``rows * cols <= 65,536`` and the dense product
at most a million multiply-adds) is scattered into a dense array and multiplied by BLAS:
about half SciPy's time there, and no SciPy import. Otherwise, without SciPy or for a dtype
SciPy's sparse routines lack (float16, bfloat16), the kernel declines and the portable
product runs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["sparse_mm"]

_SCIPY_DTYPES = (np.float32, np.float64, np.int32, np.int64)
DENSE_CELLS = 1 << 16
"""The largest sparse matrix (rows times columns) multiplied in its dense form."""
DENSE_WORK = 1 << 20
"""The most multiply-adds (rows, columns, dense columns) of a product in the dense form."""


def _scattered(indices: Any, values: Any, rows: int, cols: int) -> Any:
    """The ``(rows, cols)`` dense form of the entries (repeated entries add up). Floating
    values sum with ``bincount`` (float64: exact for float32 values, rounded once); integer
    ones with ``add.at`` (exact, in their own dtype). The indices are in range: sparse
    tensors check them when made."""
    if values.dtype.kind == "f":
        flat = np.bincount(indices[0] * cols + indices[1], weights=values,
                           minlength=rows * cols)
        return flat.reshape(rows, cols).astype(values.dtype, copy=False)
    out = np.zeros((rows, cols), dtype=values.dtype)
    np.add.at(out, (indices[0], indices[1]), values)
    return out


def sparse_mm(indices: Any, values: Any, dense: Any, rows: int) -> Any:
    """``(rows, dense.shape[1])``: row ``r`` sums ``v * dense[c]`` over the entries ``(r, c, v)``
    (repeated entries add up), or ``NotImplemented`` to leave it to the portable product."""
    if not (type(indices) is type(values) is type(dense) is np.ndarray) \
            or values.dtype.type not in _SCIPY_DTYPES or dense.dtype != values.dtype:
        return NotImplemented  # (a vmap level's batched arrays, float16...): the portable one
    cols, width = dense.shape
    cells = rows * cols
    if cells <= DENSE_CELLS and cells * width <= DENSE_WORK:
        return np.matmul(_scattered(indices, values, rows, cols), dense)
    try:
        import scipy.sparse as sp
    except ImportError:
        return NotImplemented
    # the COO product itself, not a conversion to CSR first (75 -> 53 us at 3,000 entries by
    # 16 columns): entry by entry in the given order, the CSR product's sums for coalesced
    # (row-sorted) indices bit for bit
    matrix = sp.coo_matrix((values, (indices[0], indices[1])), shape=(rows, cols))
    return np.ascontiguousarray(matrix @ dense, dtype=dense.dtype)
