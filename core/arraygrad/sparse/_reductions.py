"""Reductions of sparse COO tensors: ``torch.sparse.sum`` (and ``Tensor.sum``/``torch.sum`` of
a sparse tensor), ``torch.sparse.softmax`` and ``log_softmax``.

Each is built from the primitives (``_rules``) and dense ops on the coalesced values, so its
gradient is theirs: summing over sparse dimensions drops those rows of the indices and
coalesces (the merge adds the values that meet); summing over dense dimensions sums the values.
A softmax over a sparse dimension runs over the entries of each line, the unspecified ones
counting as minus infinity (PyTorch's rule), as a segment softmax of the values.
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad
from arraygrad.ops import activation
from arraygrad.ops.arguments import normalize_dims
from arraygrad.ops.indexing import index_select
from arraygrad.ops.rule import defop
from arraygrad.sparse._index import linear_keys
from arraygrad.sparse._rules import coalesce, from_values, values_of
from arraygrad.tensor import Tensor, wrap
from arraygrad.tensor_sparse import SparseTensor

__all__ = ["sum", "tensor_sum", "softmax", "log_softmax", "native_norm"]


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *,  # noqa: A001
        dtype: Any = None) -> Tensor:
    """The sum over ``dim`` (every dimension by default: a dense 0-d tensor). Summing sparse
    dimensions away leaves a sparse tensor, or a dense one when none is left."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")
    if dtype is not None:
        input = input.to(dtype)
    c = coalesce(input)
    values = values_of(c)
    dims = normalize_dims(dim, input.ndim, "sum")
    if dims is None:
        total = values.sum()
        if keepdim:
            total = total.reshape((1,) * input.ndim)
        return total
    sparse_dim = c.sparse_dim()
    gone = [d for d in dims if d < sparse_dim]
    dense_axes = tuple(d - sparse_dim + 1 for d in dims if d >= sparse_dim)
    if dense_axes:
        values = values.sum(dense_axes, keepdim=keepdim)
    shape = c._data.shape
    kept_rows = [k for k in range(sparse_dim) if k not in gone]
    if not keepdim and not kept_rows:  # every sparse dimension summed: a dense result
        return values.sum(0)
    backend = c._backend
    indices = c._data.indices
    if keepdim:
        xp = backend.xp
        rows = [xp.zeros_like(indices[k, ...]) if k in gone else indices[k, ...]
                for k in range(sparse_dim)]
        new_shape = tuple(1 if d in dims else n for d, n in enumerate(shape))
    else:
        rows = [indices[k, ...] for k in kept_rows]
        new_shape = tuple(n for d, n in enumerate(shape) if d not in dims)
    xp = backend.xp
    out = coalesce(from_values(wrap(xp.stack(rows, axis=0), backend), values, new_shape,
                               not gone))
    if keepdim and out._data.coalesced:  # sorted all the same; PyTorch leaves the flag unset
        out._data.coalesced = False
    return out


SUM_DENSE = defop("SumBackward0", key="sparse_sum", inputs=("self",), params=("size",),
                  vjp=(lambda g, n: g.expand(*n.size),))


def tensor_sum(input: SparseTensor, dim: Any = None, keepdim: bool = False, *,
               dtype: Any = None) -> Tensor:
    """``Tensor.sum``/``torch.sum`` of a sparse tensor: over every dimension, the sum of the
    values with a dense gradient (as PyTorch's); over ``dim``, ``torch.sparse.sum``'s."""
    if dim is not None and normalize_dims(dim, input.ndim, "sum") is not None:
        return sum(input, dim, keepdim, dtype=dtype)
    if dtype is not None:
        input = input.to(dtype)
    backend = input._backend
    values = input._data.values
    d = input.dtype if input.dtype.is_floating_point else _dt.int64
    total = backend.xp.sum(values, dtype=backend.native_dtype(d))
    if keepdim:
        total = backend.xp.reshape(total, (1,) * input.ndim)
    return SUM_DENSE.record(total, backend, (input,), size=tuple(input.shape))


def _segment_softmax(input: Tensor, dim: int, log: bool, dtype: Any) -> SparseTensor:
    if not isinstance(input, SparseTensor):
        raise RuntimeError(f"{'log_softmax' if log else 'softmax'}: expected a sparse COO "
                           "tensor (torch.sparse takes sparse input; use the dense softmax)")
    if dtype is not None:
        input = input.to(dtype)
    elif not input.dtype.is_floating_point:
        input = input.to(_dt.get_default_dtype())
    (d,) = normalize_dims(dim, input.ndim, "softmax")
    c = coalesce(input)
    values = values_of(c)
    backend = c._backend
    indices = c._data.indices
    shape = c._data.shape
    sparse_dim = indices.shape[0]
    where = wrap(indices, backend)
    if d >= sparse_dim:  # along a dense dimension: the dense softmax of the values
        fn = activation.log_softmax if log else activation.softmax
        return from_values(where, fn(values, d - sparse_dim + 1), shape, True)
    xp = backend.xp
    others = [k for k in range(sparse_dim) if k != d]
    keys = linear_keys(xp, xp.stack([indices[k, ...] for k in others], axis=0)
                       if others else xp.zeros((0, indices.shape[1]), dtype=xp.int64),
                       [shape[k] for k in others])
    _, group = xp.unique_inverse(keys)
    group = wrap(xp.reshape(group, (-1,)), backend)
    n_groups = int(xp.max(group._data)) + 1 if group.numel() else 0
    spread = group.reshape((-1,) + (1,) * (values.ndim - 1)).expand(*values.shape)
    with no_grad():  # the max only steadies the exponentials: no gradient through it
        zeros = wrap(xp.zeros((n_groups, *values.shape[1:]), dtype=values._data.dtype), backend)
        peak = zeros.scatter_reduce(0, spread, values, "amax", include_self=False)
    shifted = values - index_select(peak, 0, group)
    exp = shifted.exp()
    total = wrap(xp.zeros((n_groups, *values.shape[1:]), dtype=values._data.dtype),
                 backend).index_add(0, group, exp)
    out = shifted - index_select(total.log(), 0, group) if log else \
        exp / index_select(total, 0, group)
    return from_values(where, out, shape, True)


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> SparseTensor:
    """``torch.sparse.softmax``: a softmax over the specified entries of each line along
    ``dim`` (unspecified entries count as minus infinity and stay unspecified)."""
    return _segment_softmax(input, dim, False, dtype)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> SparseTensor:
    """``torch.sparse.log_softmax``: the log of ``softmax`` over the specified entries."""
    return _segment_softmax(input, dim, True, dtype)


def native_norm(input: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False,
                dtype: Any = None) -> Tensor:
    """``torch.native_norm``: the ``p``-norm of a sparse tensor's elements (its coalesced
    values); full reductions only, as PyTorch's sparse kernel."""
    if not isinstance(input, SparseTensor):
        raise NotImplementedError("Could not run 'aten::native_norm' with arguments from the "
                                  "'CPU' backend: native_norm is PyTorch's sparse-tensor norm; "
                                  "arraygrad.norm computes the norm of a dense tensor")
    dims = normalize_dims(dim, input.ndim, "native_norm")
    if dims is not None and len(dims) != input.ndim:
        raise RuntimeError("norm_sparse currently only supports full reductions, so 'dim' must "
                           "either be empty or contain all dimensions of the input")
    values = values_of(coalesce(input))
    if dtype is not None:
        values = values.to(dtype)
    total = values.norm(2 if p is None else p)
    return total.reshape((1,) * input.ndim) if keepdim else total
