"""Matrix products with a sparse COO operand: ``torch.mm``/``spmm``/``matmul``/``@`` (either
operand sparse), ``torch.sparse.mm``/``addmm`` (PyTorch's ``SparseAddmmBackward0``: the sparse
operand's gradient is sparse, on its pattern), ``hspmm`` and ``smm``.

The product of a sparse ``(n, m)`` matrix and a dense ``(m, p)`` one is a segment sum on
arrays: each entry ``(r, c, v)`` adds ``v * dense[c]`` to row ``r`` of the result (the
backend's ``scatter_add``), or the backend's ``sparse_mm`` kernel where it has one (the NumPy
backend's: BLAS on a small matrix's dense form, else SciPy's product). ``dense @ sparse`` is the same product transposed. The gradients
are products again: ``g @ mat2.T`` and ``mat1.T @ g``, with whichever operand is sparse.
"""

from __future__ import annotations

from typing import Any

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.dtypes import scalar_type_name
from arraygrad.ops.indexing import index_select
from arraygrad.ops.linalg import widened
from arraygrad.ops.rule import defop
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.sparse._arithmetic import add, scaled as _scaled
from arraygrad.sparse._index import coalesced_arrays
from arraygrad.sparse._rules import from_values, one_backend, pattern
from arraygrad.tensor import Tensor, wrap
from arraygrad.tensor_sparse import SparseTensor

__all__ = ["mm", "sparse_mm", "addmm", "hspmm", "smm", "sspaddmm", "matmul"]


def _product_array(backend: Any, indices: Any, values: Any, dense: Any, rows: int) -> Any:
    """``sparse @ dense`` on arrays: row ``r`` of the result sums ``v * dense[c]`` over the
    entries ``(r, c, v)``. The backend's ``sparse_mm`` kernel when it has one (NumPy's: a small
    matrix's dense form through BLAS, a larger one through SciPy), else the portable segment
    sum."""
    def portable(indices: Any, values: Any, dense: Any, rows: int) -> Any:
        xp = backend.xp
        out = xp.zeros((rows, dense.shape[1]), dtype=dense.dtype)
        if values.shape[0]:
            terms = xp.take(dense, indices[1, ...], axis=0) * xp.reshape(values, (-1, 1))
            out = backend.scatter_add(out, indices[0, ...], terms)
        return out

    return dispatch_kernel("sparse_mm", backend, portable, indices, values, dense, rows)


def _check(op: str, a: Tensor, b: Tensor) -> None:
    """PyTorch's checks of a product with a sparse operand: matrices, sizes, one dtype."""
    for t in (a, b):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument must be Tensor, not {type(t).__name__}")
        if t.ndim != 2:
            raise RuntimeError(f"addmm: matrices expected, got {t.ndim}D tensor")
        if t.is_sparse and t.dense_dim():
            raise RuntimeError(f"addmm: matrices expected, got {t.sparse_dim()}D tensor "
                               "(the dense dimensions of a hybrid sparse tensor are not "
                               "supported)")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {a.shape[1]}, got "
                           f"{b.shape[0]} ({op} of a {list(a.shape)} and a {list(b.shape)} "
                           "matrix)")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {scalar_type_name(a.dtype)} but found "
                           f"{scalar_type_name(b.dtype)} ({op})")
    one_backend(op, a, b)


def _product(a: Tensor, b: Tensor) -> Any:
    """The dense array of ``a @ b``, one of them sparse (not both)."""
    backend = a._backend
    xp = backend.xp
    if a.is_sparse:
        d = a._data
        return _product_array(backend, d.indices, d.values, b._data, d.shape[0])
    d = b._data  # dense @ sparse = (sparse.T @ dense.T).T
    flipped = xp.flip(d.indices, axis=0)
    out = _product_array(backend, flipped, d.values, xp.matrix_transpose(a._data), d.shape[1])
    return xp.matrix_transpose(out)


MM = defop("MmBackward0", key="sparse_mm", inputs=("self", "mat2"), saves=("self", "mat2"),
           uses=(("mat2",), ("self",)),
           vjp=(lambda g, n: mm(g, n.mat2.t()), lambda g, n: mm(n.self.t(), g)))


def mm(input: Tensor, mat2: Tensor, *, out_dtype: Any = None) -> Tensor:
    """``torch.mm`` (and ``spmm``) with a sparse operand: a dense result, dense gradients."""
    if not input.is_sparse and not mat2.is_sparse:
        return input.mm(mat2, out_dtype=out_dtype)
    if out_dtype is not None:
        input, mat2 = widened("mm", input, mat2, out_dtype)
    _check("mm", input, mat2)
    if input.is_sparse and mat2.is_sparse:
        raise NotImplementedError("mm: the product of two sparse tensors is not supported; "
                                  "convert one with .to_dense() (docs/sparse.md)")
    return MM.record(_product(input, mat2), input._backend, (input, mat2))


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """``torch.matmul``/``@`` with a sparse operand: ``mm``, or ``mv`` for a vector."""
    if other.ndim == 1 and input.is_sparse:
        return mm(input, other.unsqueeze(1)).squeeze(1)
    if input.ndim == 1 and other.is_sparse:
        return mm(input.unsqueeze(0), other).squeeze(0)
    return mm(input, other)


def _masked_product(g: Tensor, mat1: SparseTensor, mat2: Tensor) -> SparseTensor:
    """``g @ mat2.T`` at the positions of ``mat1`` (its coalesced pattern), as a sparse tensor:
    the gradient of a sparse operand PyTorch's ``sparse.mm`` gives."""
    if g.is_sparse:
        g = g.to_dense()
    where = pattern(mat1)
    rows = where[0]
    cols = where[1]
    values = (index_select(g, 0, rows) * index_select(mat2, 0, cols)).sum(1)
    return from_values(where, values, tuple(mat1.shape), True)


def _addmm_vjp(g: Tensor, n: Any) -> tuple[Any, ...]:
    want_self, want_mat1, want_mat2 = n.needs_input_grad
    g_self = _scaled(g, n.beta) if want_self else None
    g_mat1 = _scaled(_masked_product(g, n.mat1, n.mat2), n.alpha) if want_mat1 else None
    g_mat2 = _scaled(mm(n.mat1.t(), g), n.alpha) if want_mat2 else None
    return g_self, g_mat1, g_mat2


SPARSE_ADDMM = defop("SparseAddmmBackward0", inputs=("self", "mat1", "mat2"),
                     saves=("mat1", "mat2"), params={"beta": 1, "alpha": 1}, vjp=_addmm_vjp)


def addmm(input: Tensor | None, mat1: Tensor, mat2: Tensor, *, beta: Any = 1,
          alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` with ``mat1`` sparse and ``mat2`` dense
    (``torch.sparse.addmm``); ``mat1``'s gradient is sparse on its pattern."""
    if not isinstance(mat1, SparseTensor):
        raise RuntimeError("addmm: Expected mat1 to be a sparse COO tensor, got a strided "
                           "tensor")
    if mat2.is_sparse:
        raise NotImplementedError("addmm: the product of two sparse tensors is not supported; "
                                  "convert one with .to_dense() (docs/sparse.md)")
    _check("addmm", mat1, mat2)
    if input is not None:
        one_backend("addmm", input, mat1)
    backend = mat1._backend
    with no_grad():  # the scalings as the dense ops do them (float16 and bfloat16 kept)
        out = _scaled(wrap(_product(mat1, mat2), backend), alpha)
        if input is not None:
            if input.is_sparse:
                input = input.to_dense()
            out = out + _scaled(input.detach(), beta)
    return SPARSE_ADDMM.record(out._data, backend, (input, mat1, mat2), beta=beta, alpha=alpha)


def sparse_mm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """``torch.sparse.mm``: ``mat1 @ mat2`` with ``mat1``'s gradient sparse on its pattern."""
    return addmm(None, mat1, mat2)


def _row_products(mat1: Tensor, mat2: Tensor) -> tuple[Tensor, Tensor]:
    """The rows ``mat1`` has entries in (sorted, ``(1, k)``) and those rows of ``mat1 @ mat2``
    (in the graph)."""
    product = mm(mat1, mat2)
    d = mat1._data
    rows, _ = coalesced_arrays(mat1._backend, d.indices[:1, ...], d.values, d.shape[:1])
    row_index = wrap(rows, mat1._backend)
    return row_index, index_select(product, 0, row_index[0])


def hspmm(mat1: Tensor, mat2: Tensor) -> SparseTensor:
    """``mat1 @ mat2`` as a hybrid sparse tensor: one sparse dimension (the rows ``mat1`` has
    entries in) and the product's rows as dense values."""
    rows, values = _row_products(mat1, mat2)
    # sorted rows, without repeats; PyTorch leaves the flag unset all the same
    return from_values(rows, values, (mat1.shape[0], mat2.shape[1]), False)


def smm(input: Tensor, mat2: Tensor) -> SparseTensor:
    """``input @ mat2`` as a sparse COO tensor holding every column of the rows ``input`` has
    entries in (PyTorch's ``smm``)."""
    rows, values = _row_products(input, mat2)
    xp = input._backend.xp
    r = rows._data[0, ...]
    p = mat2.shape[1]
    indices = xp.stack([xp.repeat(r, p), xp.tile(xp.arange(p, dtype=xp.int64), (r.shape[0],))])
    return from_values(wrap(indices, input._backend), values.reshape(-1),
                       (input.shape[0], p), False)


def sspaddmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1,
             alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * smm(mat1, mat2)``, sparse (``input`` sparse)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("sspaddmm: expected 'input' to be a sparse COO tensor, got a "
                           "strided tensor")
    product = smm(mat1, mat2)
    # PyTorch's result holds the entries of both terms, not merged
    return add(input if beta == 1 else input * beta, product, alpha, merge=False)
