"""Diagonals, products and broadcasting helpers, built from the core's differentiable ops.

``diagonal`` is a strided slice of the flattened matrix; ``diag_embed`` pads each element
with zeros and reshapes (no multiply, so an inf stays an inf and its zeros stay 0);
``tensordot`` and the ``add*mm`` family reduce to one ``matmul``. Being composites, their
gradients and double backward are the core ops' own.
"""

from __future__ import annotations

import itertools
from typing import Any, Sequence

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.arguments import tensor_arg
from arraygrad.amp import state as _amp
import arraygrad as ag
from arraygrad.tensor import Tensor, _wrap_dim

__all__ = ["diagonal", "diag_embed", "diag", "diagflat", "trace", "block_diag", "cartesian_prod",
           "combinations", "kron", "inner", "tensordot", "vdot", "addmm", "addmv", "addbmm",
           "baddbmm", "addr", "meshgrid", "broadcast_tensors", "broadcast_shapes"]


def _slice(x: Tensor, dim: int, start: int | None, stop: int | None, step: int | None = None) -> Tensor:
    return x[(slice(None),) * dim + (slice(start, stop, step),)]


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset``-th diagonal of the ``dim1`` x ``dim2`` planes, as a new last dimension.

    Unlike PyTorch's (a view), the result is a copy: writing into it leaves ``input`` as it was.
    """
    if input.dim() < 2:
        raise RuntimeError(f"diagonal: input must have at least 2 dimensions, but got {input.dim()}")
    d1 = _wrap_dim(dim1, input.dim(), "diagonal")
    d2 = _wrap_dim(dim2, input.dim(), "diagonal")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    x = ag.movedim(input, (d1, d2), (-2, -1))
    *batch, n, m = x.shape
    # element (i, i + offset) of the n x m matrix sits at flat position i * (m + 1) + offset
    length = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    start = offset if offset >= 0 else -offset * m
    flat = x.reshape(*batch, n * m)
    return _slice(flat, len(batch), start, start + (length - 1) * (m + 1) + 1 if length else start, m + 1)


_diagonal = diagonal  # ``diag``'s argument named ``diagonal`` hides the function there


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor whose ``dim1`` x ``dim2`` planes have ``input``'s last dimension on their
    ``offset``-th diagonal, zeros elsewhere."""
    out_dims = input.dim() + 1
    d1 = _wrap_dim(dim1, out_dims, "diag_embed")
    d2 = _wrap_dim(dim2, out_dims, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    v = input.unsqueeze(0) if input.dim() == 0 else input
    *batch, size = v.shape
    nb = len(batch)

    def zeros(*shape: int) -> Tensor:
        return ag.zeros(*batch, *shape, dtype=v.dtype, device=v.device)

    # each element followed by ``size`` zeros, cut to size*size: the elements land on the diagonal
    padded = ag.cat([v.unsqueeze(-1), zeros(size, size)], -1).reshape(*batch, size * (size + 1))
    square = _slice(padded, nb, 0, size * size).reshape(*batch, size, size)
    k = abs(offset)
    if offset > 0:
        square = ag.cat([zeros(size, k), square], -1)
        square = ag.cat([square, zeros(k, size + k)], -2)
    elif offset < 0:
        square = ag.cat([zeros(k, size), square], -2)
        square = ag.cat([square, zeros(size + k, k)], -1)
    return ag.movedim(square, (-2, -1), (d1, d2))


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-D input's square matrix with it on the ``diagonal``-th diagonal; a 2-D input's diagonal."""
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return _diagonal(input, diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.dim()}D")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The flattened input on the ``offset``-th diagonal of a square matrix."""
    return diag_embed(input.reshape(-1), offset)


def trace(input: Tensor) -> Tensor:
    """The sum of a matrix's main diagonal."""
    check_kernel_dtype("trace", input)
    tensor_arg("trace", input)
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    return diagonal(input).sum()


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the (at most 2-D) tensors, in the promoted dtype."""
    mats = []
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {i} has {t.dim()} dimensions")
        mats.append(t.reshape(1, -1) if t.dim() < 2 else t)
    if not mats:
        return ag.zeros(1, 0)
    dtype = mats[0].dtype
    for t in mats[1:]:
        dtype = ag.promote_types(dtype, t.dtype)
    device = mats[0].device
    width = sum(t.shape[1] for t in mats)
    rows, left = [], 0
    for t in mats:
        r, c = t.shape
        rows.append(ag.cat([ag.zeros(r, left, dtype=dtype, device=device), t.to(dtype),
                            ag.zeros(r, width - left - c, dtype=dtype, device=device)], 1))
        left += c
    return ag.cat(rows, 0)


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids of the 1-D (or 0-D) tensors; ``indexing`` "ij" (matrix, the default) or "xy"."""
    ts = list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)) else list(tensors)
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not ts:
        raise RuntimeError("torch.meshgrid: Expected at least one tensor")
    for t in ts:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.dim()}D")
        if t.dtype != ts[0].dtype:
            raise RuntimeError("torch.meshgrid: expects all tensors to have the same dtype")
        if t.device != ts[0].device:
            raise RuntimeError("torch.meshgrid: expects all tensors to have the same device")
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = [t.numel() for t in ts]
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(view).expand(*shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """All tuples of one element from each 1-D tensor, as rows (a single tensor is returned as is)."""
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    return ag.stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of a 1-D tensor's elements, as rows (itertools' order)."""
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return ag.zeros(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    index = [i for combo in pick(range(input.shape[0]), r) for i in combo]
    flat = ag.index_select(input, 0, ag.tensor(index, dtype=ag.int64, device=input.device))
    return flat.reshape(-1, r)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: blocks ``input[i] * other`` (shapes padded with leading ones)."""
    tensor_arg("kron", input)
    n = max(input.dim(), other.dim())
    a_shape = [1] * (n - input.dim()) + list(input.shape)
    b_shape = [1] * (n - other.dim()) + list(other.shape)
    a = input.reshape([s for d in a_shape for s in (d, 1)]) if n else input
    b = other.reshape([s for d in b_shape for s in (1, d)]) if n else other
    return (a * b).reshape([x * y for x, y in zip(a_shape, b_shape)])


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Any = None) -> Tensor:
    """Contract ``a``'s ``dims[0]`` with ``b``'s ``dims[1]`` (an int n: ``a``'s last n with ``b``'s first n)."""
    if isinstance(dims, Tensor):
        dims = int(dims.item()) if dims.dim() == 0 else dims.tolist()
    if isinstance(dims, int) and not isinstance(dims, bool):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        da, db = list(range(a.dim() - dims, a.dim())), list(range(dims))
    else:
        if len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists of dimensions")
        da = [dims[0]] if isinstance(dims[0], int) else list(dims[0])
        db = [dims[1]] if isinstance(dims[1], int) else list(dims[1])
        if len(da) != len(db):
            raise RuntimeError(f"both dimension lists should have same length, but got {len(da)} and {len(db)}")
        da = [_wrap_dim(d, a.dim(), "tensordot") for d in da]
        db = [_wrap_dim(d, b.dim(), "tensordot") for d in db]
    for i, j in zip(da, db):
        if a.shape[i] != b.shape[j]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[i]} in dim {i} "
                               f"and second has size {b.shape[j]} in dim {j}")
    fa = [d for d in range(a.dim()) if d not in da]
    fb = [d for d in range(b.dim()) if d not in db]
    k = 1
    for d in da:
        k *= a.shape[d]
    m = n = 1  # the free sizes, spelled out: -1 is ambiguous for zero-size operands
    for d in fa:
        m *= a.shape[d]
    for d in fb:
        n *= b.shape[d]
    left = a.permute(*fa, *da).reshape(m, k)
    right = b.permute(*db, *fb).reshape(k, n)
    return ag.matmul(left, right).reshape([a.shape[d] for d in fa] + [b.shape[d] for d in fb])


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The inner product over the last dimension (a plain product when either is a scalar)."""
    tensor_arg("inner", input)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def vdot(input: Tensor, other: Tensor) -> Tensor:
    """The dot product of two 1-D tensors (real tensors: no conjugation to do)."""
    if input.dim() != 1 or other.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.dim()}D and {other.dim()}D tensors")
    return ag.dot(input, other)


def _scaled_sum(op: str, input: Tensor, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """``beta * input + alpha * product``; ``input`` broadcast to the product's shape, ignored
    (nan and inf included) when ``beta`` is 0, as PyTorch does."""
    if input.dtype != product.dtype:
        raise RuntimeError(f"{op}: self and mat2 must have the same dtype, but got {input.dtype} and "
                           f"{product.dtype}")
    try:
        ok = tuple(ag.broadcast_shapes(input.shape, product.shape)) == tuple(product.shape)
    except RuntimeError:
        ok = False
    if not ok:
        raise RuntimeError(f"{op}: the input of shape {list(input.shape)} cannot be broadcast to the "
                           f"product's shape {list(product.shape)}")
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        # ``where`` keeps ``input`` in the graph (its gradient is 0, as PyTorch's) without reading it
        return ag.where(ag.ones((), dtype=ag.bool, device=product.device), product, input)
    return product + (input if beta == 1 else input * beta)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1,
          out_dtype: Any = None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)`` (``out_dtype`` as ``mm``'s)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, mat1, mat2 = _amp.cast("addmm", input, mat1, mat2)
    product = ag.mm(mat1, mat2, out_dtype=out_dtype)
    return _scaled_sum("addmm", input if out_dtype is None else input.to(product.dtype), product,
                       beta, alpha)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, mat, vec = _amp.cast("addmv", input, mat, vec)
    return _scaled_sum("addmv", input, ag.mv(mat, vec), beta, alpha)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, vec1, vec2 = _amp.cast("addr", input, vec1, vec2)
    if vec1.dim() != 1 or vec2.dim() != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1 and vec2, but got {vec1.dim()}-D and {vec2.dim()}-D")
    return _scaled_sum("addr", input, ag.outer(vec1, vec2), beta, alpha)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1,
            out_dtype: Any = None) -> Tensor:
    """``beta * input + alpha * bmm(batch1, batch2)`` (``out_dtype`` as ``mm``'s)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, batch1, batch2 = _amp.cast("baddbmm", input, batch1, batch2)
    product = ag.bmm(batch1, batch2, out_dtype=out_dtype)
    return _scaled_sum("baddbmm", input if out_dtype is None else input.to(product.dtype),
                       product, beta, alpha)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * sum_b(batch1[b] @ batch2[b])``, as one matmul over (b, m)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, batch1, batch2 = _amp.cast("addbmm", input, batch1, batch2)
    if batch1.dim() != 3 or batch2.dim() != 3:
        raise RuntimeError(f"addbmm: batch1 must be a 3D tensor, batch2 must be a 3D tensor, but got "
                           f"{batch1.dim()}D and {batch2.dim()}D")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"addbmm: batch1 and batch2 shapes cannot be multiplied "
                           f"({list(batch1.shape)} and {list(batch2.shape)})")
    b, n, m = batch1.shape
    left = batch1.permute(1, 0, 2).reshape(n, b * m)
    right = batch2.reshape(b * m, batch2.shape[2])
    return _scaled_sum("addbmm", input, ag.mm(left, right), beta, alpha)


def broadcast_shapes(*shapes: Any) -> Any:
    """The shape that tensors of ``shapes`` broadcast to (an int counts as a 1-D shape)."""
    out: list[int] = []
    for shape in shapes:
        dims = [shape] if isinstance(shape, int) else list(shape)
        if any(d < 0 for d in dims):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(dims)}: {dims}")
        if len(dims) > len(out):
            out = [1] * (len(dims) - len(out)) + out
        for i, d in enumerate(dims, len(out) - len(dims)):
            if out[i] == 1:
                out[i] = d
            elif d != 1 and d != out[i]:
                raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape.  "
                                   f"Mismatch is between {out} and {dims}.")
    return ag.Size(out)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape."""
    ts: Sequence[Tensor] = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (tuple, list)) else tensors
    shape = broadcast_shapes(*(t.shape for t in ts))
    return tuple(t.expand(*shape) for t in ts)


FUNCTIONS = {
    "diagonal": diagonal, "diag_embed": diag_embed, "diag": diag, "diagflat": diagflat, "trace": trace,
    "block_diag": block_diag, "cartesian_prod": cartesian_prod, "combinations": combinations,
    "kron": kron, "inner": inner, "tensordot": tensordot, "vdot": vdot, "addmm": addmm,
    "addmv": addmv, "addbmm": addbmm, "baddbmm": baddbmm, "addr": addr, "meshgrid": meshgrid,
    "broadcast_tensors": broadcast_tensors, "broadcast_shapes": broadcast_shapes,
}

METHODS = {
    "diagonal": diagonal, "diag_embed": diag_embed, "diag": diag, "diagflat": diagflat, "trace": trace,
    "kron": kron, "inner": inner, "vdot": vdot, "addmm": addmm, "addmv": addmv, "addbmm": addbmm,
    "baddbmm": baddbmm, "addr": addr,
}

INPLACE = {"addmm_": addmm, "addmv_": addmv, "addbmm_": addbmm, "baddbmm_": baddbmm, "addr_": addr}
