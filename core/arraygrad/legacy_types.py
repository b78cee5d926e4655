"""PyTorch's legacy typed constructors: ``LongTensor([1, 2])``, ``FloatTensor(2, 3)``...

Each name is a class whose call builds a CPU tensor of its dtype and whose ``isinstance``
check asks for that dtype on the CPU, as in PyTorch (``isinstance(x, FloatTensor)`` is True
for a float32 CPU tensor). A name whose dtype the backend lacks (``BFloat16Tensor``
without ``ml_dtypes``) raises the backend's TypeError when called. ``cuda_types`` holds the same
names for CUDA tensors (``arraygrad.cuda.FloatTensor``): without a usable CUDA backend
calling one raises PyTorch's CPU build's TypeError.
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.tensor import Tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
           "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


class _TensorType(type):
    """The metaclass of the legacy types: calling one builds a tensor, isinstance checks dtype."""

    _dtype: _dt.dtype | None
    _dtype_name: str
    _device_type: str

    def __instancecheck__(cls, obj: Any) -> bool:
        return (isinstance(obj, Tensor) and cls._dtype is not None and obj.dtype is cls._dtype
                and obj.device.type == cls._device_type)

    def __call__(cls, *args: Any, device: Any = None) -> Tensor:
        from arraygrad import creation

        kind = cls._device_type
        if kind == "cuda":
            from arraygrad.cuda import _device

            if _device.usable() is None:
                raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not "
                                "compiled with CUDA enabled (arraygrad has no usable CUDA "
                                "backend here).")
        d = cls._dtype
        if d is None:
            raise TypeError(f"{cls.__name__}: arraygrad has no {cls._dtype_name} dtype "
                            f"(use {_dt.MISSING.get(cls._dtype_name) or 'another dtype'})")
        if device is not None and str(device).partition(":")[0] != kind:
            raise RuntimeError(f"{cls.__name__}: legacy constructor expects device type: {kind} "
                               f"but device type: {device} was passed")
        where = kind if device is None else device
        if not args:
            return creation.empty(0, dtype=d, device=where)
        if len(args) == 1 and isinstance(args[0], Tensor):
            src = args[0]
            if src.dtype is not d or src.device.type != kind:
                raise TypeError(f"{cls.__name__}: expected a {kind} tensor of dtype {d!r}, "
                                f"got one of dtype {src.dtype!r} on {src.device}")
            return src  # PyTorch returns the very tensor
        if len(args) == 1 and not isinstance(args[0], int):
            return creation.tensor(args[0], dtype=d, device=where)
        return creation.empty(*args, dtype=d, device=where)


def make_type(meta: type, name: str, dtype_name: str, device_type: str, module: str,
              doc: str) -> Any:
    """A legacy type ``name`` of metaclass ``meta`` (``_TensorType``, or the sparse types'):
    its dtype (None where arraygrad lacks it) and device type as class attributes."""
    cls = meta(name, (), {"__doc__": doc, "__module__": module})
    cls._dtype = _dt.BY_NAME.get(dtype_name)
    cls._dtype_name = dtype_name
    cls._device_type = device_type
    return cls


def _make(name: str, dtype_name: str, device_type: str = "cpu") -> _TensorType:
    doc = (f"Legacy constructor of {dtype_name} {device_type} tensors: ``{name}(data)`` copies "
           f"data, ``{name}(*sizes)`` is uninitialised; ``isinstance(t, {name})`` checks the "
           "dtype and device type.")
    module = "arraygrad" if device_type == "cpu" else f"arraygrad.{device_type}"
    return make_type(_TensorType, name, dtype_name, device_type, module, doc)


FloatTensor = _make("FloatTensor", "float32")
DoubleTensor = _make("DoubleTensor", "float64")
HalfTensor = _make("HalfTensor", "float16")
LongTensor = _make("LongTensor", "int64")
IntTensor = _make("IntTensor", "int32")
BoolTensor = _make("BoolTensor", "bool")
ByteTensor = _make("ByteTensor", "uint8")
CharTensor = _make("CharTensor", "int8")
ShortTensor = _make("ShortTensor", "int16")
BFloat16Tensor = _make("BFloat16Tensor", "bfloat16")

_NAMES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
          "LongTensor": "int64", "IntTensor": "int32", "BoolTensor": "bool",
          "ByteTensor": "uint8", "CharTensor": "int8", "ShortTensor": "int16",
          "BFloat16Tensor": "bfloat16"}
cuda_types = {name: _make(name, dtype_name, "cuda") for name, dtype_name in _NAMES.items()}
"""``arraygrad.cuda``'s legacy constructors (CUDA tensors of each dtype)."""


_NAMES_BY_DTYPE = {dtype_name: name for name, dtype_name in _NAMES.items()}


def type_name(t: Any) -> str:
    """A tensor's legacy type name, as ``Tensor.type()`` answers it: ``arraygrad.FloatTensor``
    (PyTorch's ``torch.FloatTensor``), ``arraygrad.cuda.LongTensor`` on a CUDA device,
    ``arraygrad.sparse.FloatTensor`` for a sparse tensor."""
    kind = t.device.type
    prefix = "arraygrad." if kind == "cpu" else f"arraygrad.{kind}."
    if t.is_sparse:  # PyTorch's torch.sparse.FloatTensor
        prefix += "sparse."
    return prefix + _NAMES_BY_DTYPE.get(t.dtype.name, t.dtype.name)
