"""Batching rules: matmul, vecdot, tensordot and the linalg extension (batch dimensions
lead, so the batch is one more of them).

``matmul``'s 1-D operands are the special case: a batched vector becomes a batched
one-row (left) or one-column (right) matrix, and the added dimension is removed after.
The linalg functions of one matrix (``inv``, ``det``, ``eigh``...) act on the last two
dimensions with the leading ones as a batch, so they take the physical value as it is.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.func._vmap._batched import Level
from arraygrad.func._vmap._table import (
    aligned, batched, batching_rule, bval, logical_ndim, materialize, pad, shift,
    wrap_results,
)

# linalg functions of the trailing matrix (or matrices) of each operand
_MATRIX = ("inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "eig", "eigvals", "svd",
           "svdvals", "qr", "pinv", "matrix_rank", "matrix_power", "matrix_transpose", "trace",
           "diagonal", "matrix_norm", "cond", "expm")


@batching_rule(*("linalg." + n for n in _MATRIX), "trace", "diagonal")
def matrix_fn(level: Level, fn: Callable[..., Any], x: Any, /, *args: Any, **kwargs: Any) -> Any:
    """One matrix per sample (leading logical dimensions are batch dimensions already)."""
    return wrap_results(fn(bval(x, level), *args, **kwargs), level)


@batching_rule("matmul", "linalg.matmul")
def matmul(level: Level, fn: Callable[..., Any], a: Any, b: Any, /) -> Any:
    """Batched vectors become one-row / one-column matrices; batch dimensions lined up."""
    base = level.base
    va, vb = bval(a, level), bval(b, level)
    na, nb = logical_ndim(a), logical_ndim(b)
    if vb is None and nb == 2 and na >= 1:
        # batched rows times one matrix (a linear layer): one 2-D product for the whole batch
        # (NumPy's stacked matmul of (B, 1, k) operands skips BLAS)
        rows = base.reshape(va, (-1, va.shape[-1]))
        out = fn(rows, b)
        return batched(base.reshape(out, tuple(va.shape[:-1]) + (out.shape[-1],)), level)
    drop: Any = None  # the axis (or axes) matmul's 1-D operands leave in the result
    if va is not None and na == 1:
        va = base.expand_dims(va, axis=1)  # (B, 1, k)
        na = 2
        drop = -1 if nb == 1 and vb is None else -2  # the row's axis in the result
    if vb is not None and nb == 1:
        vb = base.expand_dims(vb, axis=-1)  # (B, k, 1)
        nb = 2
        drop = -1 if drop is None else (-2, -1)
    nd = max(na, nb)
    lhs = a if va is None else pad(va, level, nd)
    rhs = b if vb is None else pad(vb, level, nd)
    out = fn(lhs, rhs)
    if drop is not None:
        out = base.squeeze(out, axis=drop)
    return batched(out, level)


@batching_rule("vecdot", "linalg.vecdot", "linalg.cross", "cross")
def vecdot(level: Level, fn: Callable[..., Any], x1: Any, x2: Any, /, *, axis: int = -1) -> Any:
    """Broadcasting operands with one logical axis of products (counted from the end)."""
    nd = max(logical_ndim(x1), logical_ndim(x2))
    neg = axis if axis < 0 else axis - nd
    return batched(fn(*aligned(level, (x1, x2)), axis=neg), level)


@batching_rule("tensordot", "linalg.tensordot")
def tensordot(level: Level, fn: Callable[..., Any], x1: Any, x2: Any, /, *, axes: Any = 2) -> Any:
    """As ``matmul`` of the flattened contracted and free axes, one per sample."""
    xp = level.xp
    n1, n2 = x1.ndim, x2.ndim
    if isinstance(axes, int):
        ax1 = list(range(n1 - axes, n1))
        ax2 = list(range(axes))
    else:
        ax1 = [a % n1 for a in axes[0]]
        ax2 = [a % n2 for a in axes[1]]
    free1 = [i for i in range(n1) if i not in ax1]
    free2 = [i for i in range(n2) if i not in ax2]
    s1, s2 = x1.shape, x2.shape
    k = 1
    for a in ax1:
        k *= s1[a]
    m = 1
    for i in free1:
        m *= s1[i]
    n = 1
    for i in free2:
        n *= s2[i]
    lhs = xp.reshape(xp.permute_dims(x1, tuple(free1 + ax1)), (m, k))
    rhs = xp.reshape(xp.permute_dims(x2, tuple(ax2 + free2)), (k, n))
    out = xp.matmul(lhs, rhs)
    return xp.reshape(out, tuple(s1[i] for i in free1) + tuple(s2[i] for i in free2))


@batching_rule("linalg.solve")
def solve(level: Level, fn: Callable[..., Any], x1: Any, x2: Any, /) -> Any:
    """``x2`` a matrix (or a vector per the standard's rule: 1-D); batch dimensions lined up."""
    base = level.base
    v1, v2 = materialize(x1, level), materialize(x2, level)
    if x2.ndim == 1:
        v2 = base.expand_dims(v2, axis=-1)
        nd = max(x1.ndim, 2)
        out = fn(pad(v1, level, nd), pad(v2, level, nd))
        return batched(base.squeeze(out, axis=-1), level)
    nd = max(x1.ndim, x2.ndim)
    return batched(fn(pad(v1, level, nd), pad(v2, level, nd)), level)


@batching_rule("linalg.outer", "outer")
def outer(level: Level, fn: Callable[..., Any], x1: Any, x2: Any, /) -> Any:
    """Per sample: ``x1[:, None] * x2[None, :]``."""
    base = level.base
    v1, v2 = materialize(x1, level), materialize(x2, level)
    return batched(base.expand_dims(v1, axis=-1) * base.expand_dims(v2, axis=1), level)


@batching_rule("linalg.vector_norm")
def vector_norm(level: Level, fn: Callable[..., Any], x: Any, /, *, axis: Any = None,
                **kwargs: Any) -> Any:
    """A norm over logical axes (None: all of them, the result 0-d per sample)."""
    nd = x.ndim
    if axis is None:
        phys: Any = tuple(range(1, nd + 1))
    elif isinstance(axis, (tuple, list)):
        phys = tuple(shift(a, nd) for a in axis)
    else:
        phys = shift(axis, nd)
    return batched(fn(materialize(x, level), axis=phys, **kwargs), level)


