"""arraygrad's dtypes and PyTorch's type-promotion rules.

A dtype is a small named object (``arraygrad.float32``); each backend maps it
to its own native dtype. Promotion follows PyTorch, not NumPy: categories
bool < integer < floating; within a category the wider type wins; a Python
scalar or a 0-dim tensor only changes the result when it is of a higher
category than the dimensioned operands (``int_tensor * 1.5`` is float32).
"""

from __future__ import annotations

import builtins
from typing import Any, Callable

__all__ = [
    "dtype", "float16", "float32", "float64", "int32", "int64", "bool",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "scalar_type_name",
]

_BOOL, _INT, _FLOAT = 0, 1, 2


class dtype:
    """A tensor element type, named as in PyTorch (``arraygrad.float32``)."""

    __slots__ = ("name", "category", "itemsize", "is_floating_point", "_rank")

    # The module below rebinds ``int``/``bool``/``float`` to dtypes (PyTorch's names),
    # hence ``builtins`` in these annotations.
    name: str
    category: builtins.int
    itemsize: builtins.int
    is_floating_point: builtins.bool
    _rank: builtins.int

    def __init__(self, name: str, category: builtins.int, itemsize: builtins.int,
                 rank: builtins.int):
        self.name = name
        self.category = category
        self.itemsize = itemsize
        self.is_floating_point = category == _FLOAT
        self._rank = rank

    def __repr__(self) -> str:
        return f"arraygrad.{self.name}"

    @property
    def is_signed(self) -> builtins.bool:
        """Whether the type holds negative values (every arraygrad dtype but ``bool``)."""
        return self.category != _BOOL

    @property
    def is_complex(self) -> builtins.bool:
        """Whether the type is complex: never (arraygrad's dtypes are real)."""
        return False

    @property
    def abbr(self) -> str:
        """PyTorch's short name: ``f32``, ``i64``, ``b8``."""
        kind = {_BOOL: "b", _INT: "i", _FLOAT: "f"}[self.category]
        return f"{kind}{8 * self.itemsize}"

    def to_real(self) -> "dtype":
        """The real dtype of this one: itself (arraygrad's dtypes are real)."""
        return self

    def __reduce__(self) -> str:
        return self.name  # module-level singleton


float16 = dtype("float16", _FLOAT, 2, 1)
float32 = dtype("float32", _FLOAT, 4, 2)
float64 = dtype("float64", _FLOAT, 8, 3)
int32 = dtype("int32", _INT, 4, 1)
int64 = dtype("int64", _INT, 8, 2)
bool = dtype("bool", _BOOL, 1, 0)  # noqa: A001 - PyTorch's name

# PyTorch's aliases.
half, float, double = float16, float32, float64  # noqa: A001
int, long = int32, int64  # noqa: A001

ALL_DTYPES = (float16, float32, float64, int32, int64, bool)
BY_NAME = {d.name: d for d in ALL_DTYPES}

# PyTorch dtypes arraygrad does not have (the Array API standard defines none of them): naming
# one (``arraygrad.bfloat16``) raises an AttributeError that says so, not a bare "no attribute".
MISSING = {
    "bfloat16": "float16 or float32", "uint8": "int32 or bool", "int8": "int32",
    "int16": "int32", "complex64": None, "complex128": None, "cfloat": None, "cdouble": None,
}


def missing_dtype_error(name: str) -> AttributeError:
    """The error for a PyTorch dtype name arraygrad has no dtype for."""
    instead = MISSING[name]
    hint = f"; use {instead} instead" if instead else ""
    return AttributeError(f"arraygrad has no {name} dtype (its dtypes are "
                          f"{', '.join(d.name for d in ALL_DTYPES)}){hint}")

_default_float = float32


def get_default_dtype() -> dtype:
    """The dtype of floating tensors made from Python floats (float32)."""
    return _default_float


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype (float16, float32 or float64), as ``torch.set_default_dtype``.

    Anything else is refused with PyTorch's TypeError (an integer dtype, a Python type).
    """
    global _default_float
    if not isinstance(d, dtype):
        raise TypeError(f"set_default_dtype: invalid dtype object {d!r}: only floating-point "
                        "types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError(f"set_default_dtype: only floating-point types are supported as the "
                        f"default type, got {d!r}")
    _default_float = d


_SCALAR_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                      "int32": "Int", "int64": "Long", "float16": "Half", "bfloat16": "BFloat16",
                      "float32": "Float", "float64": "Double"}


def scalar_type_name(d: dtype) -> str:
    """PyTorch's scalar-type name of ``d`` (``Float``, ``Long``...), as its messages spell it."""
    return _SCALAR_TYPE_NAMES.get(d.name, d.name)


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to, as ``torch.promote_types``."""
    if type1 is type2:
        return type1
    if type1.category != type2.category:
        return type1 if type1.category > type2.category else type2
    return type1 if type1._rank >= type2._rank else type2


_py_int = (0).__class__
_py_float = (0.0).__class__
_py_bool = (True).__class__


def dtype_of_scalar(value: object) -> dtype:
    """The dtype a tensor made from this Python scalar gets."""
    if isinstance(value, _py_bool):
        return bool
    if isinstance(value, _py_int):
        return int64
    return _default_float


def result_type(*operands: Any) -> dtype:
    """PyTorch's result dtype for tensors (dimensioned or 0-dim) and Python scalars.

    Operands are tensors or Python scalars. Three tiers take part, each only
    when it raises the category: dimensioned tensors, then 0-dim tensors,
    then Python scalars.
    """
    dim_t: dtype | None = None
    zero_t: dtype | None = None
    scalar_cat = -1
    for op in operands:
        d = getattr(op, "dtype", None)
        if not isinstance(d, dtype):  # a scalar (a NumPy scalar's dtype is NumPy's: a scalar)
            cat = _scalar_cat(op)
            if cat > scalar_cat:
                scalar_cat = cat
        elif op.ndim:
            dim_t = d if dim_t is None else promote_types(dim_t, d)
        else:
            zero_t = d if zero_t is None else promote_types(zero_t, d)
    result = dim_t
    if zero_t is not None:
        if result is None or zero_t.category > result.category:
            result = zero_t
    if scalar_cat >= 0:
        if result is None or scalar_cat > result.category:
            result = _CATEGORY_DEFAULT[scalar_cat]()
    if result is None:  # no operands at all
        raise TypeError("result_type: expected at least one operand")
    return result


def _scalar_cat(value: object) -> builtins.int:
    if isinstance(value, _py_bool):
        return _BOOL
    if isinstance(value, _py_int):
        return _INT
    return _FLOAT


_CATEGORY_DEFAULT: dict[builtins.int, Callable[[], dtype]] = {
    _BOOL: lambda: bool, _INT: lambda: int64, _FLOAT: get_default_dtype}
