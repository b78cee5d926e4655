"""The standard's ``linalg`` extension over ``arraygrad.linalg`` (differentiable): keyword
names of the standard (``axis``, ``keepdims``, ``rtol``, ``offset``), named tuples for the
decompositions, ``trace``/``diagonal`` over the last two axes, dtypes promoted first."""

from __future__ import annotations

from typing import Any, NamedTuple

import arraygrad as _ag
from arraygrad import linalg as _la
from arraygrad.array_api._axes import normalize_axes
from arraygrad.array_api._promotion import promote_pair
from arraygrad.array_api._statistical import sum as _sum
from arraygrad.tensor import Tensor
from arraygrad.array_api._array import export as _export

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv",
           "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
           "vector_norm", "EighResult", "QRResult", "SlogdetResult", "SVDResult"]


class EighResult(NamedTuple):
    """``eigh``'s eigenvalues (ascending) and eigenvectors."""
    eigenvalues: Tensor
    eigenvectors: Tensor


class QRResult(NamedTuple):
    """``qr``'s factors."""
    Q: Tensor
    R: Tensor


class SlogdetResult(NamedTuple):
    """``slogdet``'s sign and log of the absolute determinant."""
    sign: Tensor
    logabsdet: Tensor


class SVDResult(NamedTuple):
    """``svd``'s factors ``U``, ``S`` and ``Vh``."""
    U: Tensor
    S: Tensor
    Vh: Tensor


def cholesky(x: Tensor, /, *, upper: bool = False) -> Tensor:
    """The Cholesky factor of symmetric (Hermitian) positive-definite matrices."""
    return _la.cholesky(x, upper=upper)


def cross(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """The cross product of 3-element vectors along ``axis``."""
    a, b = promote_pair(x1, x2)
    a, b = _ag.broadcast_tensors(a, b)
    return _la.cross(a, b, dim=axis)


def det(x: Tensor, /) -> Tensor:
    """The determinant of each matrix."""
    return _la.det(x)


def diagonal(x: Tensor, /, *, offset: int = 0) -> Tensor:
    """Diagonal ``offset`` of each matrix (the last two axes)."""
    return _la.diagonal(x, offset=offset)


def eigh(x: Tensor, /) -> EighResult:
    """Eigenvalues and eigenvectors of symmetric (Hermitian) matrices."""
    return EighResult(*_la.eigh(x))


def eigvalsh(x: Tensor, /) -> Tensor:
    """Eigenvalues of symmetric (Hermitian) matrices, ascending."""
    return _la.eigvalsh(x)


def inv(x: Tensor, /) -> Tensor:
    """The inverse of each matrix."""
    return _la.inv(x)


def matmul(x1: Tensor, x2: Tensor, /) -> Tensor:
    """The matrix product (the ``@`` operator), after the standard's promotion."""
    return _ag.matmul(*promote_pair(x1, x2))


def matrix_norm(x: Tensor, /, *, keepdims: bool = False, ord: Any = "fro") -> Tensor:
    """The ``ord`` norm of each matrix."""
    return _la.matrix_norm(x, ord=ord, dim=(-2, -1), keepdim=keepdims)


def matrix_power(x: Tensor, n: int, /) -> Tensor:
    """Each square matrix raised to the integer power ``n``."""
    return _la.matrix_power(x, n)


def matrix_rank(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    """The rank of each matrix (singular values above ``rtol`` times the largest)."""
    return _la.matrix_rank(x, rtol=rtol)


def matrix_transpose(x: Tensor, /) -> Tensor:
    """Each matrix transposed (the last two axes swapped)."""
    if x.ndim < 2:
        raise ValueError("matrix_transpose() needs an array of at least two dimensions")
    return x.mT


def outer(x1: Tensor, x2: Tensor, /) -> Tensor:
    """The outer product of two vectors."""
    return _ag.outer(*promote_pair(x1, x2))


def pinv(x: Tensor, /, *, rtol: Any = None) -> Tensor:
    """The Moore-Penrose pseudo-inverse of each matrix."""
    return _la.pinv(x, rtol=rtol)


def qr(x: Tensor, /, *, mode: str = "reduced") -> QRResult:
    """The QR decomposition of each matrix."""
    return QRResult(*_la.qr(x, mode=mode))


def slogdet(x: Tensor, /) -> SlogdetResult:
    """The sign and log of the absolute determinant of each matrix."""
    return SlogdetResult(*_la.slogdet(x))


def solve(x1: Tensor, x2: Tensor, /) -> Tensor:
    """The solution of ``x1 @ out = x2`` (a 1-D ``x2`` is one vector)."""
    a, b = promote_pair(x1, x2)
    if b.ndim == 1:
        return _la.solve(a, b[..., None])[..., 0] if a.ndim == 2 else \
            _la.solve(a, _ag.broadcast_to(b, a.shape[:-1])[..., None])[..., 0]
    return _la.solve(a, b)


def svd(x: Tensor, /, *, full_matrices: bool = True) -> SVDResult:
    """The singular value decomposition of each matrix."""
    return SVDResult(*_la.svd(x, full_matrices=full_matrices))


def svdvals(x: Tensor, /) -> Tensor:
    """The singular values of each matrix, descending."""
    return _la.svdvals(x)


def tensordot(x1: Tensor, x2: Tensor, /, *, axes: Any = 2) -> Tensor:
    """The sum of products over ``axes`` (a count of trailing/leading axes or two lists)."""
    return _ag.tensordot(*promote_pair(x1, x2), dims=axes)


def trace(x: Tensor, /, *, offset: int = 0, dtype: Any = None) -> Tensor:
    """The sum of diagonal ``offset`` of each matrix (accumulated as ``sum``)."""
    return _sum(_la.diagonal(x, offset=offset), axis=-1, dtype=dtype)


def vecdot(x1: Tensor, x2: Tensor, /, *, axis: int = -1) -> Tensor:
    """The dot product of vectors along ``axis`` (``x1`` conjugated), of any numeric dtype
    (``arraygrad.linalg.vecdot`` takes floating ones only, as PyTorch's)."""
    a, b = promote_pair(x1, x2)
    if a.shape[axis] != b.shape[axis]:
        raise ValueError("vecdot() needs arrays of the same size along axis")
    if a.dtype.is_complex:
        a = _ag.conj_physical(a)
    return _ag.sum(_ag.mul(a, b), dim=axis, dtype=a.dtype)  # integers keep their dtype


def vector_norm(x: Tensor, /, *, axis: Any = None, keepdims: bool = False,
                ord: Any = 2) -> Tensor:
    """The ``ord`` norm of vectors along ``axis`` (of all elements when None)."""
    axes = normalize_axes(axis, x.ndim)
    if not axes:
        return _ag.abs(x)
    return _la.vector_norm(x, ord=ord, dim=axes, keepdim=keepdims)


_export(globals(), __all__)  # the namespace's functions return its array type (``_array``)
