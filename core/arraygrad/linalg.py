"""``arraygrad.linalg``: PyTorch's ``torch.linalg`` namespace.

The ops and their gradient rules live in ``arraygrad.ops.families.linalg_ops``; this
module is the public namespace (``import arraygrad.linalg`` or ``arraygrad.linalg.inv``).
"""

from __future__ import annotations

from arraygrad.ops.families.linalg_ops import (
    LinAlgError, cholesky, cross, det, eigh, eigvalsh, inv, lstsq, matrix_exp, matrix_norm,
    matrix_power, matrix_rank, multi_dot, norm, pinv, qr, slogdet, solve, svd, svdvals, vecdot,
    vector_norm,
)

__all__ = ["LinAlgError", "cholesky", "cross", "det", "eigh", "eigvalsh", "inv", "lstsq",
           "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "vecdot", "vector_norm"]
