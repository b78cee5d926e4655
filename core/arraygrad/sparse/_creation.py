"""Making sparse COO tensors: ``sparse_coo_tensor``, ``Tensor.to_sparse``, ``spdiags``, and
PyTorch's checks of them.

arraygrad checks a COO tensor's indices against its size whatever ``check_invariants`` says:
PyTorch skips the check by default for speed, and an index out of range then reads memory it
does not own; here it would index out of bounds or, negative, wrap around silently. The check
is one pass over the indices.
"""

from __future__ import annotations

from typing import Any, Sequence

from arraygrad import creation, dtypes as _dt
from arraygrad.layouts import sparse_coo, strided
from arraygrad.sparse._index import check_in_bounds
from arraygrad.sparse._rules import from_values, to_sparse as _to_sparse
from arraygrad.tensor import Tensor
from arraygrad.tensor_sparse import SparseTensor, make_sparse

__all__ = ["sparse_coo_tensor", "to_sparse", "spdiags", "empty_sparse"]


def _as_tensor(data: Any, dtype: Any, device: Any) -> Tensor:
    if isinstance(data, Tensor):
        out = data
        if device is not None:
            out = out.to(device)
        return out if dtype is None else out.to(dtype)
    return creation.as_tensor(data, dtype=dtype, device=device)


def _size(size: Any) -> tuple[int, ...]:
    if isinstance(size, int) or not isinstance(size, Sequence) or \
            not all(isinstance(n, int) and not isinstance(n, bool) for n in size):
        raise TypeError(f"sparse_coo_tensor(): argument 'size' must be tuple of ints, but found "
                        f"{type(size).__name__}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"sparse_coo_tensor(): size {list(size)} has a negative dimension")
    return tuple(size)


def empty_sparse(size: Sequence[int], dtype: Any = None, device: Any = None,
                 requires_grad: bool = False) -> SparseTensor:
    """An all-zero sparse tensor of ``size`` (no entries, every dimension sparse)."""
    shape = _size(size)
    d = dtype if dtype is not None else _dt.get_default_dtype()
    values = creation.empty(0, dtype=d, device=device)
    indices = creation.empty((len(shape), 0), dtype=_dt.int64, device=device)
    out = make_sparse(indices._data, values._data, shape, values._backend, True)
    if requires_grad:
        out.requires_grad_(True)
    return out


def sparse_coo_tensor(indices: Any = None, values: Any = None, size: Any = None, *,
                      dtype: Any = None, device: Any = None, pin_memory: bool = False,
                      requires_grad: bool = False, check_invariants: bool | None = None,
                      is_coalesced: bool | None = None) -> SparseTensor:
    """A sparse COO tensor with ``values`` at ``indices`` (``(sparse_dim, nnz)``, cast to
    int64): ``size`` is inferred from the indices when left out, the values' trailing
    dimensions are dense dimensions, repeated indices add up. ``sparse_coo_tensor(size)``
    is an empty one. In the graph through ``values`` when they require grad."""
    if values is None and indices is not None and size is None:
        indices, size = None, indices  # sparse_coo_tensor(size)
    if indices is None:
        if size is None:
            raise TypeError("sparse_coo_tensor() missing required argument 'indices'")
        return empty_sparse(size, dtype, device, requires_grad)
    if pin_memory:
        from arraygrad.layouts import check_pin_memory

        check_pin_memory(pin_memory, "sparse_coo_tensor")
    values = _as_tensor(values, dtype, device)
    # tensors keep their device unless one is asked for (then both move), as in PyTorch
    index = _as_tensor(indices, None, device if isinstance(indices, Tensor) or device is not None
                       else values.device)
    if index._backend is not values._backend:
        if index.device == values.device:  # one of them batched by a vmap level
            raise NotImplementedError("sparse_coo_tensor: vmap does not batch sparse tensors "
                                      "(arraygrad.sparse runs on unbatched operands)")
        raise RuntimeError(f"device of indices ({index.device}) must match device of values "
                           f"({values.device})")
    if index.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(index.shape)}")
    if index.dtype is not _dt.int64:
        index = index.to(_dt.int64)
    sparse_dim, nnz = index.shape
    if values.ndim == 0:
        raise RuntimeError("values must have at least one dimension (nnz), got a 0-d tensor")
    if values.shape[0] != nnz:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{nnz}, nnz from values: {values.shape[0]}")
    dense_shape = tuple(values.shape[1:])
    xp = index._backend.xp
    if size is None:
        sizes = tuple(int(xp.max(index._data[k, ...])) + 1 if nnz else 0
                      for k in range(sparse_dim))
        if nnz and any(int(xp.min(index._data[k, ...])) < 0 for k in range(sparse_dim)):
            check_in_bounds(xp, index._data, sizes)
        shape = sizes + dense_shape
    else:
        shape = _size(size)
        if len(shape) != sparse_dim + len(dense_shape):
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: "
                               f"len(size) = {len(shape)}, sparse_dim = {sparse_dim}, "
                               f"dense_dim = {len(dense_shape)}")
        if tuple(shape[sparse_dim:]) != dense_shape:
            raise RuntimeError(f"values has incorrect size, expected {[nnz, *shape[sparse_dim:]]}"
                               f", got {list(values.shape)}")
        check_in_bounds(xp, index._data, shape)
    coalesced = bool(is_coalesced) or nnz <= 1
    if not values._requires_grad and not values._fw_grads:  # nothing to record
        out = make_sparse(index._data, values._data, shape, values._backend, coalesced)
        if requires_grad:
            out.requires_grad_(True)
        return out
    return from_values(index.detach(), values, shape, coalesced)


def to_sparse(input: Tensor, sparse_dim: Any = None, *, layout: Any = None,
              blocksize: Any = None, dense_dim: Any = None) -> SparseTensor:
    """The sparse COO copy of a dense tensor: its non-zero entries (``sparse_dim``: how many
    leading dimensions are sparse, every one by default; ``dense_dim`` the trailing ones)."""
    if layout is not None and layout is not sparse_coo:
        if layout is strided:
            raise RuntimeError("to_sparse: layout torch.strided is not a sparse layout")
        raise NotImplementedError(
            f"to_sparse: layout {layout!r} is not supported: arraygrad has the sparse COO "
            "layout only (CSR, CSC, BSR and BSC are listed in docs/differences.md)")
    if blocksize is not None:
        raise RuntimeError("to_sparse: blocksize is only for the block layouts (BSR, BSC), "
                           "which arraygrad does not have")
    ndim = input.ndim
    if sparse_dim is None:
        sparse_dim = ndim if dense_dim is None else ndim - int(dense_dim)
    if isinstance(input, SparseTensor):
        if sparse_dim != input.sparse_dim():
            raise RuntimeError(f"to_sparse: conversion from Sparse to Sparse with sparse_dim "
                               f"argument != self.sparse_dim() is not supported (got "
                               f"{sparse_dim} and {input.sparse_dim()})")
        return input
    if not 0 <= sparse_dim <= ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{ndim}] range, "
                           f"but {sparse_dim} is given")
    if sparse_dim == 0 and ndim > 0:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                           "self.dim()>0")
    return _to_sparse(input, sparse_dim)


def spdiags(diagonals: Tensor, offsets: Tensor, shape: Sequence[int],
            layout: Any = None) -> SparseTensor:
    """A sparse matrix of ``shape`` from the rows of ``diagonals`` placed on the diagonals
    ``offsets`` (SciPy's ``spdiags`` convention: element ``j`` of row ``i`` goes to column
    ``j``), as ``torch.sparse.spdiags``; zeros of the rows are kept as entries, as PyTorch's."""
    if layout is not None and layout is not sparse_coo:
        raise NotImplementedError(f"spdiags: layout {layout!r} is not supported: arraygrad has "
                                  "the sparse COO layout only")
    if diagonals.ndim != 2:
        raise RuntimeError(f"Diagonals must be vector or matrix, got {diagonals.ndim}D tensor")
    if offsets.ndim != 1:
        raise RuntimeError(f"Offsets must be scalar or vector, got {offsets.ndim}D tensor")
    if diagonals.shape[0] != offsets.shape[0]:
        raise RuntimeError(f"Number of diagonals ({diagonals.shape[0]}) does not match the "
                           f"number of offsets ({offsets.shape[0]})")
    rows_n, cols_n = (int(n) for n in shape)
    found = [int(o) for o in offsets.tolist()]
    if len(set(found)) != len(found):
        raise RuntimeError("Offset tensor contains duplicate values")
    rows: list[int] = []
    cols: list[int] = []
    picks: list[int] = []
    width = diagonals.shape[1]
    for i, off in enumerate(found):
        start = max(0, off)
        stop = min(cols_n, rows_n + off, width)
        for c in range(start, stop):
            rows.append(c - off)
            cols.append(c)
            picks.append(i * width + c)
    device = diagonals.device
    where = creation.tensor([rows, cols], dtype=_dt.int64, device=device).reshape(2, -1)
    pick = creation.tensor(picks, dtype=_dt.int64, device=device)
    values = diagonals.reshape(-1)[pick]
    if not values._requires_grad and not values._fw_grads:
        return make_sparse(where._data, values._data, (rows_n, cols_n), values._backend,
                           False)
    return from_values(where, values, (rows_n, cols_n), False)
