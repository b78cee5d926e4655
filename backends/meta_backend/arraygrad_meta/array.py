"""``MetaArray``: an array that is a shape and a dtype, and nothing else.

It answers what the core asks of an Array API array (``shape``, ``ndim``, ``size``,
``dtype``, ``device``, ``T``, ``mT``, the Python operators, indexing) by computing the
result's shape and dtype through the meta namespace (``namespace.get()``), never an
element. What needs an element (``__bool__``, ``__float__``, ``__array__``, ``__dlpack__``)
raises PyTorch's meta errors: a meta array leaking into code that reads values fails
loudly instead of inventing one.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from arraygrad_meta import errors

__all__ = ["MetaArray"]


def _ns() -> Any:
    from arraygrad_meta.namespace import get
    return get()


def _binary(name: str) -> Any:
    def method(self: "MetaArray", other: Any) -> Any:
        return getattr(_ns(), name)(self, other)
    method.__name__ = f"__{name}__"
    return method


def _reflected(name: str) -> Any:
    def method(self: "MetaArray", other: Any) -> Any:
        return getattr(_ns(), name)(other, self)
    method.__name__ = f"__r{name}__"
    return method


def _inplace(name: str) -> Any:
    def method(self: "MetaArray", other: Any) -> "MetaArray":
        result = getattr(_ns(), name)(self, other)
        if result.shape != self.shape:
            raise ValueError(f"non-broadcastable output operand with shape {self.shape} doesn't "
                             f"match the broadcast shape {result.shape}")
        if not np.can_cast(result.dtype, self.dtype, "same_kind"):
            raise TypeError(f"Cannot cast ufunc '{name}' output from {result.dtype!r} to "
                            f"{self.dtype!r} with casting rule 'same_kind'")
        return self
    return method


def _unary(name: str) -> Any:
    def method(self: "MetaArray") -> Any:
        return getattr(_ns(), name)(self)
    return method


def _no_value(self: "MetaArray", *args: Any) -> Any:
    raise RuntimeError(errors.ITEM)


class MetaArray:
    """A shape and a dtype (a NumPy dtype: the CPU backend's), with no elements."""

    __slots__ = ("shape", "dtype")
    __array_ufunc__ = None  # NumPy: ``ndarray op MetaArray`` defers to our reflected operator
    __array_priority__ = 1000
    device = "meta"

    def __init__(self, shape: Any, dtype: Any) -> None:
        self.shape = tuple(operator.index(n) for n in shape)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements it stands for."""
        return math.prod(self.shape)

    @property
    def T(self) -> "MetaArray":
        """The dimensions reversed."""
        return _ns().permute_dims(self, tuple(range(self.ndim - 1, -1, -1)))

    @property
    def mT(self) -> "MetaArray":
        """The last two dimensions swapped."""
        return _ns().matrix_transpose(self)

    def __array_namespace__(self, api_version: str | None = None) -> Any:
        """The meta namespace."""
        return _ns()

    def to_device(self, device: Any, /, *, stream: Any = None) -> "MetaArray":
        """Itself: a meta array has no memory to move."""
        return self

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self) -> Any:
        return (self[i] for i in range(len(self)))

    def __getitem__(self, key: Any) -> "MetaArray":
        from arraygrad_meta.rules_indexing import getitem
        return getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        from arraygrad_meta.rules_indexing import setitem
        setitem(self, key, value)

    def __repr__(self) -> str:
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"

    # what reads an element: PyTorch's meta errors
    __bool__ = __int__ = __float__ = __complex__ = __index__ = _no_value

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        raise TypeError(errors.NUMPY)

    def __dlpack__(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(errors.NUMPY)

    def __dlpack_device__(self) -> Any:
        raise TypeError(errors.NUMPY)

    __hash__ = object.__hash__  # identity, as a tensor's: ``==`` is elementwise


for _name, _fn in [("add", "add"), ("sub", "subtract"), ("mul", "multiply"),
                   ("truediv", "divide"), ("floordiv", "floor_divide"), ("mod", "remainder"),
                   ("pow", "pow"), ("matmul", "matmul"), ("and", "bitwise_and"),
                   ("or", "bitwise_or"), ("xor", "bitwise_xor"),
                   ("lshift", "bitwise_left_shift"), ("rshift", "bitwise_right_shift")]:
    setattr(MetaArray, f"__{_name}__", _binary(_fn))
    setattr(MetaArray, f"__r{_name}__", _reflected(_fn))
    setattr(MetaArray, f"__i{_name}__", _inplace(_fn))
for _name, _fn in [("eq", "equal"), ("ne", "not_equal"), ("lt", "less"), ("le", "less_equal"),
                   ("gt", "greater"), ("ge", "greater_equal")]:
    setattr(MetaArray, f"__{_name}__", _binary(_fn))
for _name, _fn in [("neg", "negative"), ("pos", "positive"), ("abs", "abs"),
                   ("invert", "bitwise_invert")]:
    setattr(MetaArray, f"__{_name}__", _unary(_fn))
