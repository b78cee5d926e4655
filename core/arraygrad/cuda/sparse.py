"""``arraygrad.cuda.sparse``: PyTorch's legacy typed constructors of sparse COO tensors on
CUDA (``torch.cuda.sparse.FloatTensor(indices, values, size)``...), deprecated in PyTorch;
``arraygrad.sparse_coo_tensor(..., device="cuda")`` is the current spelling."""

from __future__ import annotations

from arraygrad.sparse._legacy import legacy_types

_TYPES = legacy_types("cuda")
globals().update(_TYPES)
__all__ = list(_TYPES)
