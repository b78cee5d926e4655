"""``grouped_mm``: many matrix products of shared shapes with jagged group sizes (a
mixture-of-experts layer's experts), one ``matmul`` per group."""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops.linalg import matmul
from arraygrad.ops.shape import cat, stack
from arraygrad.tensor import Tensor

__all__ = ["grouped_mm"]


def _bounds(offs: Tensor) -> list[tuple[int, int]]:
    ends = [int(v) for v in offs.tolist()]
    return list(zip([0] + ends[:-1], ends))


def grouped_mm(mat_a: Tensor, mat_b: Tensor, *, offs: Tensor | None = None,
               bias: Tensor | None = None, out_dtype: Any = None) -> Tensor:
    """The grouped products, by the operands' ranks:

    - 3-D ``(G, M, K)`` and 3-D ``(G, K, N)``: ``mat_a[g] @ mat_b[g]``, ``(G, M, N)``;
    - 2-D ``(M_total, K)`` and 3-D ``(G, K, N)``: rows ``offs[g-1]:offs[g]`` of ``mat_a``
      times ``mat_b[g]``, ``(M_total, N)``;
    - 3-D ``(G, M, K)`` and 2-D ``(K, N_total)``: ``mat_a[g]`` times columns
      ``offs[g-1]:offs[g]``, ``(M, N_total)``;
    - 2-D ``(M, K_total)`` and 2-D ``(K_total, N)``: the products of the ``offs`` slices of the
      shared dimension, ``(G, M, N)``.

    ``offs`` (int32, increasing group ends) is required exactly when an operand is 2-D; rows
    or columns past ``offs[-1]`` are zeros. ``bias`` is refused, as PyTorch does.
    """
    if mat_a.ndim not in (2, 3):
        raise RuntimeError("mat_a has to be 2 or 3d")
    if mat_b.ndim not in (2, 3):
        raise RuntimeError("mat_b has to be 2 or 3d")
    a_3d, b_3d = mat_a.ndim == 3, mat_b.ndim == 3
    if (offs is None) != (a_3d and b_3d):
        raise RuntimeError("Have to provide offsets if there is a 2d matrix, or no offset if "
                           "both matrices are 3d")
    if offs is not None and offs.dtype != _dt.int32:
        raise RuntimeError("Offsets have to be int32")
    if mat_a.shape[-1] != mat_b.shape[-2]:
        raise RuntimeError("contraction dimension of mat_a and mat_b must match")
    if a_3d and b_3d and mat_a.shape[0] != mat_b.shape[0]:
        raise RuntimeError("batched dimension has to match")
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("Grouped gemm output dtype must match `mat_a` dtype")
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    if offs is None:
        return matmul(mat_a, mat_b)
    groups = _bounds(offs)
    if not a_3d and not b_3d:
        return stack([matmul(mat_a[:, lo:hi], mat_b[lo:hi]) for lo, hi in groups])
    if b_3d:  # rows of mat_a by group
        pieces = [matmul(mat_a[lo:hi], mat_b[g]) for g, (lo, hi) in enumerate(groups)]
        rest = mat_a.shape[0] - (groups[-1][1] if groups else 0)
        pieces.append(mat_a.new_zeros((rest, mat_b.shape[-1])))
        return cat(pieces, 0)
    pieces = [matmul(mat_a[g], mat_b[:, lo:hi]) for g, (lo, hi) in enumerate(groups)]
    rest = mat_b.shape[1] - (groups[-1][1] if groups else 0)
    pieces.append(mat_a.new_zeros((mat_a.shape[1], rest)))
    return cat(pieces, 1)
