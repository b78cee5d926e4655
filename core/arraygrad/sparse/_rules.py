"""The rules of the sparse COO primitives, and the differentiable functions that record them.

What is a gradient with respect to a sparse tensor? The gradient of the dense tensor it stands
for: a sparse tensor whose dense copy is that gradient (or a dense tensor), as in PyTorch.
Repeated indices add up, so a rule whose input may be uncoalesced writes its gradient in terms
of the output's gradient (``-g``, ``g.t()``), never one value per stored entry; the values of a
tensor enter the graph only once it is coalesced (``values_of``).

The primitives, each one rule (PyTorch's node names):

- ``from_values``: the values, at fixed indices, as a sparse tensor (``sparse_coo_tensor``'s
  node): the gradient of each value is the output's gradient at its position (``values_at``);
- ``values_of``: a coalesced tensor's values: the gradient is the sparse tensor of them;
- ``coalesce``: the same tensor, repeats merged: the gradient passes as it is;
- ``to_dense`` (gradient masked to the input's pattern, as PyTorch's ``masked_grad``) and
  ``to_sparse`` (the gradient densified).

The other sparse ops are these primitives, the dense ops on values, and the arithmetic rules
(``_arithmetic``, ``_products``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Sequence, cast

from arraygrad.ops.indexing import index_select
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import defop, identity
from arraygrad.sparse._index import (
    coalesced_arrays, dense_array, linear_keys, lookup, nonzero_positions,
)
from arraygrad.tensor import Tensor, wrap
from arraygrad.tensor_sparse import SparseTensor, make_sparse

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode

__all__ = ["from_values", "values_of", "values_at", "coalesce", "to_dense", "to_sparse",
           "sparse_mask", "pattern", "one_backend"]


def one_backend(op: str, *tensors: Tensor) -> Any:
    """The one backend of ``tensors`` (PyTorch's RuntimeError naming both devices when they
    differ); a ``vmap`` level's batched operand is refused: sparse tensors are not batched."""
    backend = same_backend(op, *tensors)
    if any(t._backend is not backend for t in tensors):
        raise NotImplementedError(f"{op}: vmap does not batch sparse tensors (arraygrad.sparse "
                                  "runs on unbatched operands)")
    return backend


SPARSE_COO = defop("SparseCooTensorWithDimsAndTensorsBackward0", key="sparse_coo_tensor",
                   inputs=("values",), saves=("indices",), params=("size",),
                   vjp=(lambda g, n: values_at(g, n.indices, n.size),))


def from_values(indices: Tensor, values: Tensor, shape: Sequence[int],
                coalesced: bool) -> SparseTensor:
    """The sparse tensor of ``values`` at ``indices`` (int64 ``(sparse_dim, nnz)``), in the
    graph through ``values``."""
    out = make_sparse(indices._data, values._data, tuple(shape), values._backend, coalesced)
    return SPARSE_COO.record_result(out, (values,), indices=indices, size=tuple(shape))


VALUES = defop("ValuesBackward0", key="sparse_values", inputs=("self",), saves=("indices",),
               params=("size",),
               vjp=(lambda g, n: from_values(n.indices, g, n.size, True),))


def values_of(s: SparseTensor) -> Tensor:
    """The values of coalesced ``s``, in the graph (they share its memory)."""
    data = s._data
    return VALUES.record(data.values, s._backend, (s,), indices=wrap(data.indices, s._backend),
                         size=data.shape)


def values_at(g: Tensor, indices: Tensor, size: Sequence[int]) -> Tensor:
    """What tensor ``g`` (dense, or sparse: its dense copy) holds at each position of
    ``indices``: ``(nnz, *size[sparse_dim:])``, in the graph through ``g``."""
    sparse_dim = indices.shape[0]
    if not g.is_sparse:
        if sparse_dim == 0:
            return g.unsqueeze(0).expand(indices.shape[1], *g.shape)
        return g[tuple(indices[k] for k in range(sparse_dim))]
    xp = g._backend.xp
    gc = coalesce(g)
    sizes = tuple(size[:sparse_dim])
    pos, found = lookup(xp, linear_keys(xp, gc._data.indices, sizes),
                        linear_keys(xp, indices._data, sizes))
    dense_dim = len(size) - sparse_dim
    if gc._nnz() == 0:
        return wrap(xp.zeros((indices.shape[1], *size[sparse_dim:]), dtype=gc._data.dtype),
                    g._backend)
    picked = index_select(values_of(gc), 0, wrap(pos, g._backend))
    mask = xp.reshape(xp.astype(found, gc._data.dtype), (-1,) + (1,) * dense_dim)
    return picked * wrap(mask, g._backend)


COALESCE = defop("CoalesceBackward0", key="sparse_coalesce", inputs=("self",), vjp=(identity,))


def coalesce(s: Tensor) -> SparseTensor:
    """Sparse ``s`` with its indices sorted and repeats summed (``s`` itself when
    coalesced)."""
    data = s._data
    if data.coalesced:
        return cast(SparseTensor, s)
    indices, values = coalesced_arrays(s._backend, data.indices, data.values,
                                       data.shape[:data.indices.shape[0]])
    out = make_sparse(indices, values, data.shape, s._backend, True)
    return COALESCE.record_result(out, (s,))


def pattern(s: SparseTensor) -> Tensor:
    """The coalesced indices of ``s`` (outside the graph)."""
    data = s._data
    if data.coalesced:
        return wrap(data.indices, s._backend)
    indices, _ = coalesced_arrays(s._backend, data.indices, data.values,
                                  data.shape[:data.indices.shape[0]])
    return wrap(indices, s._backend)


def sparse_mask(input: Tensor, mask: Tensor) -> SparseTensor:
    """``input`` (dense or sparse) at each stored position of ``mask``, as a sparse tensor
    with ``mask``'s indices (repeats included: pass ``mask.coalesce()`` to have none), as
    PyTorch's ``Tensor.sparse_mask``."""
    if not isinstance(mask, SparseTensor):
        raise NotImplementedError("Could not run 'aten::sparse_mask' with arguments from the "
                                  "'CPU' backend: the mask of sparse_mask must be a sparse COO "
                                  "tensor, got a strided one")
    if tuple(input.shape) != tuple(mask.shape):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(input.shape)} but mask has size {list(mask.shape)}")
    return _at_pattern(input, wrap(mask._data.indices, mask._backend), mask._data.shape,
                       mask._data.coalesced)


def _at_pattern(input: Tensor, where: Tensor, shape: tuple[int, ...],
                coalesced: bool) -> SparseTensor:
    """The sparse tensor of ``input``'s elements at the positions ``where``."""
    values = values_at(input, where, shape)
    if values.dtype != input.dtype:
        values = values.to(input.dtype)
    return from_values(where, values, shape, coalesced)


def _masked_grad(g: Tensor, n: RuleNode) -> Tensor:
    """``to_dense``'s gradient: ``g`` at the positions of the input (each once)."""
    if not n.masked_grad:
        return g
    s = n.self
    return _at_pattern(g, pattern(s), s._data.shape, True)


TO_DENSE = defop("ToDenseBackward0", key="sparse_to_dense", inputs=("self",), saves=("self",),
                 params={"masked_grad": True},
                 vjp=(_masked_grad,))


def to_dense(s: SparseTensor, dtype: Any = None, *, masked_grad: bool | None = None) -> Tensor:
    """The dense tensor ``s`` stands for (repeats added up). Its gradient is masked to the
    pattern of ``s`` unless ``masked_grad=False``, as in PyTorch."""
    if dtype is not None:
        raise RuntimeError("dtype argument is not supported by sparse_to_dense")
    data = s._data
    dense = dense_array(s._backend, data.indices, data.values, data.shape)
    return TO_DENSE.record(dense, s._backend, (s,), masked_grad=masked_grad is not False)


TO_SPARSE = defop("ToSparseBackward0", key="sparse_from_dense", inputs=("self",),
                  vjp=(lambda g, n: g.to_dense(),))


def to_sparse(input: Tensor, sparse_dim: int) -> SparseTensor:
    """The non-zero entries of dense ``input`` (rows of its last dense dimensions that are not
    all zero) as a coalesced COO tensor with ``sparse_dim`` sparse dimensions."""
    backend = input._backend
    xp = backend.xp
    data = input._data
    shape = tuple(data.shape)
    indices = nonzero_positions(xp, data, sparse_dim)
    sizes = shape[:sparse_dim]
    rows = xp.reshape(data, (math.prod(sizes), *shape[sparse_dim:]))
    values = xp.take(rows, linear_keys(xp, indices, sizes), axis=0)
    out = make_sparse(indices, values, shape, backend, True)
    return TO_SPARSE.record_result(out, (input,))
