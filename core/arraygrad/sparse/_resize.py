"""In-place resizing of a sparse COO tensor, by PyTorch's rules: ``sparse_resize_``,
``sparse_resize_and_clear_`` and ``resize_as_sparse_``.

An empty tensor takes any size and split into sparse and dense dimensions; one with entries
keeps its numbers of sparse and dense dimensions and may only grow (its indices stay valid).
A dense dimension that grows pads the values with zeros (PyTorch leaves them uninitialised).
"""

from __future__ import annotations

from typing import Any, Sequence

from arraygrad.autograd.grad_mode import _state as _grad_state
from arraygrad.tensor_sparse import CooData, SparseTensor

__all__ = ["sparse_resize_", "sparse_resize_and_clear_", "resize_as_sparse_"]

_ADVICE = ("\nYou could try the following options:\n1. If you need an empty sparse tensor of "
           "this size, call `x = torch.sparse_coo_tensor(size)`.\n2. If you need to resize "
           "this tensor, you have the following options:\n    1. For both sparse and dense "
           "dimensions, keep the number of them constant and the size of them non-shrinking, "
           "and then try the same call again.\n    2. Or, create a new sparse tensor with the "
           "correct indices and values from this sparse tensor.")


def _check(self: Any, op: str, size: Sequence[int], sparse_dim: int, dense_dim: int) -> None:
    if not isinstance(self, SparseTensor):
        raise NotImplementedError(f"Could not run 'aten::{op}' with arguments from the 'CPU' "
                                  "backend: a dense (strided) tensor has no sparse dimensions")
    if len(size) != sparse_dim + dense_dim:
        raise RuntimeError(f"number of dimensions must be sparse_dim ({sparse_dim}) + dense_dim "
                           f"({dense_dim}), but got {len(size)}")
    if self._requires_grad and _grad_state.enabled and self._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _set(self: SparseTensor, indices: Any, values: Any, size: Sequence[int],
         coalesced: bool) -> SparseTensor:
    self._data = CooData(indices, values, tuple(size), coalesced, self._data.key)
    self._bump_version()
    return self


def sparse_resize_and_clear_(self: SparseTensor, size: Sequence[int], sparse_dim: int,
                             dense_dim: int) -> SparseTensor:
    """Make ``self`` an empty sparse tensor of ``size`` with ``sparse_dim`` sparse dimensions."""
    size = tuple(int(n) for n in size)
    _check(self, "sparse_resize_and_clear_", size, sparse_dim, dense_dim)
    xp = self._backend.xp
    values = self._data.values
    return _set(self, xp.zeros((sparse_dim, 0), dtype=xp.int64),
                xp.zeros((0, *size[sparse_dim:]), dtype=values.dtype), size, True)


def sparse_resize_(self: SparseTensor, size: Sequence[int], sparse_dim: int,
                   dense_dim: int) -> SparseTensor:
    """Give ``self`` the shape ``size``: any shape when it is empty, else the same numbers of
    sparse and dense dimensions, none smaller than before."""
    size = tuple(int(n) for n in size)
    _check(self, "sparse_resize_", size, sparse_dim, dense_dim)
    data = self._data
    if data.values.shape[0] == 0:
        return sparse_resize_and_clear_(self, size, sparse_dim, dense_dim)
    old_sparse = data.indices.shape[0]
    old_dense = data.ndim - old_sparse
    if sparse_dim != old_sparse:
        raise RuntimeError(f"changing the number of sparse dimensions (from {old_sparse} to "
                           f"{sparse_dim}) on a non-empty sparse tensor is not supported.{_ADVICE}")
    if dense_dim != old_dense:
        raise RuntimeError(f"changing the number of dense dimensions (from {old_dense} to "
                           f"{dense_dim}) on a non-empty sparse tensor is not supported.{_ADVICE}")
    for kind, lo, hi in (("sparse", 0, sparse_dim), ("dense", sparse_dim, len(size))):
        if any(n < o for n, o in zip(size[lo:hi], data.shape[lo:hi])):
            raise RuntimeError(f"shrinking the size of {kind} dimensions (from "
                               f"{list(data.shape[lo:hi])} to {list(size[lo:hi])}) on a "
                               f"non-empty sparse tensor is not supported.{_ADVICE}")
    values = data.values
    xp = self._backend.xp
    for axis, n in enumerate(size[sparse_dim:], start=1):
        if n > values.shape[axis]:  # pad with zeros along this value axis
            pad = list(values.shape)
            pad[axis] = n - values.shape[axis]
            values = xp.concat([values, xp.zeros(tuple(pad), dtype=values.dtype)], axis=axis)
    return _set(self, data.indices, values, size, data.coalesced)


def resize_as_sparse_(self: SparseTensor, the_template: SparseTensor) -> SparseTensor:
    """``sparse_resize_`` to the size and dimensions of sparse tensor ``the_template``."""
    if not isinstance(the_template, SparseTensor):
        raise RuntimeError("resize_as_sparse_: expected a sparse COO template tensor, got a "
                           "strided tensor")
    return sparse_resize_(self, tuple(the_template.shape), the_template.sparse_dim(),
                          the_template.dense_dim())
