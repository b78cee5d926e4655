"""``torch.sparse.FloatTensor`` & co.: PyTorch's deprecated typed constructors of sparse COO
tensors, still common in published code (Kipf's pyGCN builds its adjacency with
``torch.sparse.FloatTensor(indices, values, shape)``).

``FloatTensor(indices, values[, size])`` and ``FloatTensor(*size)`` build a sparse tensor of
the type's dtype, with PyTorch's deprecation warning; ``isinstance(s, FloatTensor)`` asks
for a sparse float32 CPU tensor. ``arraygrad.cuda.sparse`` holds the same names for CUDA.
"""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.legacy_types import make_type
from arraygrad.tensor import Tensor
from arraygrad.tensor_sparse import SparseTensor

__all__ = ["LEGACY_TYPES", "legacy_types"]


class _SparseTensorType(type):
    """The metaclass of the legacy sparse types: calling one builds a sparse tensor."""

    _dtype: _dt.dtype | None
    _dtype_name: str
    _device_type: str

    def __instancecheck__(cls, obj: Any) -> bool:
        return (isinstance(obj, SparseTensor) and obj.dtype is cls._dtype
                and obj.device.type == cls._device_type)

    def __call__(cls, *args: Any, device: Any = None) -> SparseTensor:
        from arraygrad.sparse._creation import sparse_coo_tensor

        d = cls._dtype
        if d is None:
            raise TypeError(f"{cls.__name__}: arraygrad has no {cls._dtype_name} dtype")
        if device is None:
            device = cls._device_type
        if args and isinstance(args[0], Tensor):
            if len(args) not in (2, 3):
                raise TypeError(f"{cls.__name__}(): expected (indices, values) or (indices, "
                                "values, size)")
            shown = "indices, values, shape" if len(args) == 3 else "indices, values"
            warnings.warn(f"torch.sparse.SparseTensor({shown}, *, device=) is deprecated.  "
                          f"Please use torch.sparse_coo_tensor({shown}, dtype=, device=).",
                          UserWarning, stacklevel=2)
            indices, values = args[0], args[1]
            size = tuple(args[2]) if len(args) == 3 else None
            return sparse_coo_tensor(indices, values.to(d), size, device=device)
        size = tuple(args[0]) if len(args) == 1 and not isinstance(args[0], int) else args
        warnings.warn("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
                      "torch.sparse_coo_tensor(shape, dtype=, device=).", UserWarning,
                      stacklevel=2)
        return sparse_coo_tensor(size, dtype=d, device=device)


def _make(name: str, dtype_name: str, device_type: str) -> _SparseTensorType:
    doc = (f"Legacy constructor of sparse COO {dtype_name} {device_type} tensors (deprecated in "
           "PyTorch: use ``sparse_coo_tensor``).")
    module = "arraygrad.sparse" if device_type == "cpu" else f"arraygrad.{device_type}.sparse"
    return make_type(_SparseTensorType, name, dtype_name, device_type, module, doc)


def legacy_types(device_type: str) -> dict[str, _SparseTensorType]:
    """PyTorch's legacy sparse types on ``device_type``, by name."""
    return {name: _make(name, dtype_name, device_type) for name, dtype_name in (
        ("FloatTensor", "float32"), ("DoubleTensor", "float64"), ("HalfTensor", "float16"),
        ("BFloat16Tensor", "bfloat16"), ("LongTensor", "int64"), ("IntTensor", "int32"),
        ("ShortTensor", "int16"), ("CharTensor", "int8"), ("ByteTensor", "uint8"))}


LEGACY_TYPES = legacy_types("cpu")
"""``arraygrad.sparse.<name>`` for each of PyTorch's legacy sparse types."""
