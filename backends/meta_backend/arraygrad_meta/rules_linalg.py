"""Shape rules of products and of the ``linalg`` extension: the batch dimensions broadcast,
the matrix dimensions as each factorisation gives them (probes on 1x1 stand-ins give the
dtypes and the named-tuple types)."""

from __future__ import annotations

from typing import Any

import numpy as np

from arraygrad_meta.array import MetaArray
from arraygrad_meta.table import probe, shape_rule, shaped

__all__ = ["matmul_shape"]


def matmul_shape(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """``a @ b``'s shape (a 1-d operand is a row or a column, dropped from the result);
    NumPy's ValueError when the inner sizes differ."""
    a2 = (1,) + a if len(a) == 1 else a
    b2 = b + (1,) if len(b) == 1 else b
    if a2[-1] != b2[-2]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                         f"gufunc signature (n?,k),(k,m?)->(n?,m?) (size {b2[-2]} is different "
                         f"from {a2[-1]})")
    out = np.broadcast_shapes(a2[:-2], b2[:-2]) + (a2[-2], b2[-1])
    if len(a) == 1:
        out = out[:-2] + out[-1:]
    if len(b) == 1:
        out = out[:-1]
    return out


@shape_rule("matmul", "linalg.matmul")
def matmul(fn: Any, a: Any, b: Any, /) -> MetaArray:
    """The batch dimensions broadcast, then ``(n, k) @ (k, m) -> (n, m)``."""
    return shaped(probe(fn, a, b), matmul_shape(tuple(a.shape), tuple(b.shape)))


@shape_rule("tensordot", "linalg.tensordot")
def tensordot(fn: Any, a: Any, b: Any, /, *, axes: Any = 2) -> MetaArray:
    """``a``'s free dimensions, then ``b``'s."""
    if isinstance(axes, int):
        ax_a = list(range(len(a.shape) - axes, len(a.shape)))
        ax_b = list(range(axes))
    else:
        ax_a = [axes[0]] if isinstance(axes[0], int) else list(axes[0])
        ax_b = [axes[1]] if isinstance(axes[1], int) else list(axes[1])
    ax_a = [x % len(a.shape) for x in ax_a]
    ax_b = [x % len(b.shape) for x in ax_b]
    if [a.shape[i] for i in ax_a] != [b.shape[i] for i in ax_b]:
        raise ValueError("shape-mismatch for sum")
    found = probe(fn, a, b, axes=axes)
    free_a = tuple(n for i, n in enumerate(a.shape) if i not in ax_a)
    free_b = tuple(n for i, n in enumerate(b.shape) if i not in ax_b)
    return shaped(found, free_a + free_b)


@shape_rule("vecdot", "linalg.vecdot")
def vecdot(fn: Any, a: Any, b: Any, /, *, axis: int = -1) -> MetaArray:
    """The broadcast shape without ``axis``."""
    found = probe(fn, a, b, axis=axis)
    shape = np.broadcast_shapes(a.shape, b.shape)
    ax = axis % len(shape)
    return shaped(found, shape[:ax] + shape[ax + 1:])


@shape_rule("linalg.outer", "outer")
def outer(fn: Any, a: Any, b: Any, /) -> MetaArray:
    """``(a.size, b.size)``."""
    return shaped(probe(fn, a, b), (a.size, b.size))


@shape_rule("linalg.cross")
def cross(fn: Any, a: Any, b: Any, /, **kwargs: Any) -> MetaArray:
    """The broadcast shape."""
    return shaped(probe(fn, a, b, **kwargs), np.broadcast_shapes(a.shape, b.shape))


@shape_rule("linalg.det", "linalg.matrix_rank")
def per_matrix(fn: Any, x: MetaArray, /, **kwargs: Any) -> MetaArray:
    """One value per matrix: the batch dimensions."""
    return shaped(probe(fn, x, **kwargs), x.shape[:-2])


@shape_rule("linalg.slogdet")
def slogdet(fn: Any, x: MetaArray, /) -> Any:
    """``(sign, logabsdet)``, one each per matrix."""
    found = probe(fn, x)
    return type(found)(*(shaped(f, x.shape[:-2]) for f in found))


@shape_rule("linalg.solve")
def solve(fn: Any, a: MetaArray, b: MetaArray, /) -> MetaArray:
    """``b``'s shape with the batch broadcast (a 1-d ``b`` is one vector)."""
    found = probe(fn, a, b)
    if b.ndim == 1:
        return shaped(found, a.shape[:-2] + (b.shape[0],))
    return shaped(found, np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:])


@shape_rule("linalg.qr")
def qr(fn: Any, x: MetaArray, /, *, mode: str = "reduced") -> Any:
    """``Q`` of ``(m, k)`` and ``R`` of ``(k, n)`` with ``k = min(m, n)`` (``complete``:
    ``k = m``)."""
    found = probe(fn, x, mode=mode)
    *batch, m, n = x.shape
    k = m if mode == "complete" else min(m, n)
    return type(found)(shaped(found[0], (*batch, m, k)), shaped(found[1], (*batch, k, n)))


@shape_rule("linalg.eigh")
def eigh(fn: Any, x: MetaArray, /, **kwargs: Any) -> Any:
    """Eigenvalues ``(n,)`` and eigenvectors ``(n, n)`` per matrix."""
    found = probe(fn, x, **kwargs)
    return type(found)(shaped(found[0], x.shape[:-1]), shaped(found[1], x.shape))


@shape_rule("linalg.eigvalsh")
def eigvalsh(fn: Any, x: MetaArray, /, **kwargs: Any) -> MetaArray:
    """``(n,)`` per matrix."""
    return shaped(probe(fn, x, **kwargs), x.shape[:-1])


@shape_rule("linalg.svd")
def svd(fn: Any, x: MetaArray, /, *, full_matrices: bool = True) -> Any:
    """``U`` ``(m, m)``, ``S`` ``(k,)``, ``Vh`` ``(n, n)``; reduced: ``(m, k)``, ``(k, n)``."""
    found = probe(fn, x, full_matrices=full_matrices)
    *batch, m, n = x.shape
    k = min(m, n)
    u, vh = ((m, m), (n, n)) if full_matrices else ((m, k), (k, n))
    return type(found)(shaped(found[0], (*batch, *u)), shaped(found[1], (*batch, k)),
                       shaped(found[2], (*batch, *vh)))


@shape_rule("linalg.svdvals")
def svdvals(fn: Any, x: MetaArray, /) -> MetaArray:
    """``(min(m, n),)`` per matrix."""
    return shaped(probe(fn, x), x.shape[:-2] + (min(x.shape[-2:]),))


@shape_rule("linalg.pinv")
def pinv(fn: Any, x: MetaArray, /, **kwargs: Any) -> MetaArray:
    """``(n, m)`` per ``(m, n)`` matrix."""
    return shaped(probe(fn, x, **kwargs), x.shape[:-2] + x.shape[-2:][::-1])
