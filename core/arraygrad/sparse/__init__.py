"""``arraygrad.sparse``: PyTorch's ``torch.sparse``, on tensors in the sparse COO layout.

A sparse COO tensor (``arraygrad.tensor_sparse.SparseTensor``, ``layout ==
arraygrad.sparse_coo``) holds the indices of its specified elements and their values. It is
made by ``arraygrad.sparse_coo_tensor`` or ``Tensor.to_sparse()``; ``to_dense``,
``coalesce``, ``indices``/``values``, ``mm``/``spmm``/``sparse.mm``, ``sparse.sum``,
``sparse.softmax``, arithmetic and the zero-preserving functions of the values work on it,
with PyTorch's gradients (a sparse input's gradient is sparse on its pattern where PyTorch
gives that, dense where PyTorch gives dense). Everything runs on the backend's Array API
namespace (index arithmetic, ``unique_inverse``, ``searchsorted`` and the backend's
``scatter_add``). See docs/sparse.md.

>>> import arraygrad as ag
>>> adj = ag.sparse_coo_tensor([[0, 1, 1], [1, 0, 2]], [1., 2., 3.], (2, 3))
>>> ag.sparse.mm(adj, ag.ones(3, 1)).flatten()
tensor([1., 5.])
"""

from __future__ import annotations

from typing import Any

from arraygrad.sparse import _methods
from arraygrad.sparse._creation import spdiags
from arraygrad.sparse._invariants import as_sparse_gradcheck, check_sparse_tensor_invariants
from arraygrad.sparse._legacy import LEGACY_TYPES
from arraygrad.sparse._products import addmm, sparse_mm as mm
from arraygrad.sparse._reductions import log_softmax, softmax, sum
from arraygrad.tensor import Tensor

__all__ = ["addmm", "mm", "sum", "softmax", "log_softmax", "spdiags",
           "check_sparse_tensor_invariants", "as_sparse_gradcheck", "Tensor",
           *LEGACY_TYPES]

_methods.bind()
globals().update(LEGACY_TYPES)

# torch.sparse's names arraygrad does not have, and why
_ABSENT = {
    "sampled_addmm": "it takes and returns sparse CSR tensors; arraygrad's sparse layout is COO "
                     "only (compute (mat1 @ mat2) at a COO pattern with Tensor.sparse_mask)",
    "spsolve": "a direct sparse solver over a CSR matrix (PyTorch calls cuDSS or a CPU sparse "
               "LU): the Array API has no sparse factorisation; solve densely with "
               "arraygrad.linalg.solve(A.to_dense(), b)",
    **{name: "2:4 semi-structured sparsity for NVIDIA's sparse tensor cores (CUTLASS and "
             "cuSPARSELt kernels): arraygrad computes through its backend's Array API namespace "
             "and has no such kernels"
       for name in ("to_sparse_semi_structured", "SparseSemiStructuredTensor",
                    "SparseSemiStructuredTensorCUTLASS", "SparseSemiStructuredTensorCUSPARSELT",
                    "semi_structured")},
}


def __getattr__(name: str) -> Any:
    reason = _ABSENT.get(name)
    if reason is None:
        raise AttributeError(f"module 'arraygrad.sparse' has no attribute '{name}'")
    raise AttributeError(f"arraygrad.sparse has no {name}: {reason}")
