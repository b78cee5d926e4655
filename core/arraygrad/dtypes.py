"""arraygrad's dtypes and PyTorch's type-promotion rules.

A dtype is a small named object (``arraygrad.float32``); each backend maps it
to its own native dtype (and may lack some: ``Backend.supported_dtypes``).
Promotion follows PyTorch, not NumPy: categories bool < integer < floating; within
a category ``promote_types`` follows PyTorch's table (``uint8 + int8 -> int16``,
``bfloat16 + float16 -> float32``; ``uint16/32/64`` promote with nothing but
themselves and the floating types, as in PyTorch 2.13); a Python scalar or a 0-dim
tensor only changes the result when it is of a higher category than the dimensioned
operands (``int_tensor * 1.5`` is float32).
"""

from __future__ import annotations

import builtins
import struct as _struct
import sys as _sys
from typing import Any, Callable

__all__ = [
    "dtype", "float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16", "int32",
    "int64", "uint16", "uint32", "uint64", "bool", "get_default_dtype", "set_default_dtype",
    "promote_types", "result_type", "scalar_type_name",
]

_BOOL, _INT, _FLOAT = 0, 1, 2


class dtype:
    """A tensor element type, named as in PyTorch (``arraygrad.float32``)."""

    __slots__ = ("name", "category", "itemsize", "is_floating_point", "is_signed", "_promote")

    # The module below rebinds ``int``/``bool``/``float`` to dtypes (PyTorch's names),
    # hence ``builtins`` in these annotations.
    name: str
    category: builtins.int
    itemsize: builtins.int
    is_floating_point: builtins.bool
    is_signed: builtins.bool
    """Whether the type holds negative values (PyTorch's ``is_signed``: not bool, not uintN)."""
    _promote: dict["dtype", "dtype | None"]

    def __init__(self, name: str, category: builtins.int, itemsize: builtins.int,
                 signed: builtins.bool = True):
        self.name = name
        self.category = category
        self.itemsize = itemsize
        self.is_floating_point = category == _FLOAT
        self.is_signed = signed
        self._promote = {}

    def __repr__(self) -> str:
        return f"arraygrad.{self.name}"

    @property
    def is_complex(self) -> builtins.bool:
        """Whether the type is complex: never (arraygrad's dtypes are real)."""
        return False

    @property
    def abbr(self) -> str:
        """PyTorch's short name: ``f32``, ``i64``, ``u8``, ``bf16``, ``b8``."""
        if self.name == "bfloat16":
            return "bf16"
        kind = {_BOOL: "b", _INT: "i" if self.is_signed else "u", _FLOAT: "f"}[self.category]
        return f"{kind}{8 * self.itemsize}"

    def to_real(self) -> "dtype":
        """The real dtype of this one: itself (arraygrad's dtypes are real)."""
        return self

    def __reduce__(self) -> str:
        return self.name  # module-level singleton


float16 = dtype("float16", _FLOAT, 2)
bfloat16 = dtype("bfloat16", _FLOAT, 2)
float32 = dtype("float32", _FLOAT, 4)
float64 = dtype("float64", _FLOAT, 8)
uint8 = dtype("uint8", _INT, 1, signed=False)
int8 = dtype("int8", _INT, 1)
int16 = dtype("int16", _INT, 2)
int32 = dtype("int32", _INT, 4)
int64 = dtype("int64", _INT, 8)
uint16 = dtype("uint16", _INT, 2, signed=False)
uint32 = dtype("uint32", _INT, 4, signed=False)
uint64 = dtype("uint64", _INT, 8, signed=False)
bool = dtype("bool", _BOOL, 1, signed=False)  # noqa: A001 - PyTorch's name

# PyTorch's aliases.
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

ALL_DTYPES = (float16, bfloat16, float32, float64, uint8, int8, int16, int32, int64, uint16,
              uint32, uint64, bool)
BY_NAME = {d.name: d for d in ALL_DTYPES}

# PyTorch's "barebones" unsigned types: they promote with themselves and floating types only.
_SHELL_UNSIGNED = (uint16, uint32, uint64)


def _promotion(a: dtype, b: dtype) -> dtype | None:
    """PyTorch's ``promote_types(a, b)``, or None where PyTorch refuses the pair."""
    if a is b:
        return a
    if a.category != b.category:
        low, high = (a, b) if a.category < b.category else (b, a)
        if high.category != _FLOAT and (low in _SHELL_UNSIGNED or high in _SHELL_UNSIGNED):
            return None
        return high
    if a.category == _FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32  # neither holds the other
        return a if a.itemsize >= b.itemsize else b
    if a in _SHELL_UNSIGNED or b in _SHELL_UNSIGNED:
        return None
    if a is uint8 or b is uint8:  # with a signed type: one wide enough for 0..255
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize >= b.itemsize else b


for _a in ALL_DTYPES:
    for _b in ALL_DTYPES:
        _a._promote[_b] = _promotion(_a, _b)

# PyTorch dtypes arraygrad does not have (the Array API standard defines none of them): naming
# one (``arraygrad.complex64``) raises an AttributeError that says so, not a bare "no attribute".
MISSING: dict[str, str | None] = {"complex64": None, "complex128": None, "cfloat": None,
                                  "cdouble": None}


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
    """Set the default floating dtype (float16, bfloat16, float32 or float64), as
    ``torch.set_default_dtype``.

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
                      "float32": "Float", "float64": "Double", "uint16": "UInt16",
                      "uint32": "UInt32", "uint64": "UInt64"}


# the ``struct`` module's code of one element of each dtype (bfloat16 has none: see ``unpack``)
STRUCT_CODES = {"float16": "e", "float32": "f", "float64": "d", "uint8": "B", "int8": "b",
                "int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "int64": "q",
                "uint64": "Q", "bool": "?"}


def unpack(data: bytes, d: dtype, count: builtins.int, order: str = "<") -> list[Any]:
    """The first ``count`` elements of dtype ``d`` in ``data`` as Python values (``order``:
    a ``struct`` byte order, ``<`` little-endian). A bfloat16 is read as the float32 whose
    upper half it is (exact)."""
    data = bytes(data[:count * d.itemsize])
    code = STRUCT_CODES.get(d.name)
    if code is None:  # bfloat16: pad each element to a float32
        little = order == "<" or (order in "=@" and _sys.byteorder == "little")
        pairs = (data[i:i + 2] for i in range(0, len(data), 2))
        data = b"".join(b"\0\0" + p if little else p + b"\0\0" for p in pairs)
        code = "f"
    return list(_struct.unpack(f"{order}{count}{code}", data))


def scalar_type_name(d: dtype) -> str:
    """PyTorch's scalar-type name of ``d`` (``Float``, ``Long``...), as its messages spell it."""
    return _SCALAR_TYPE_NAMES.get(d.name, d.name)


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to, as ``torch.promote_types``
    (RuntimeError for the pairs PyTorch refuses: ``uint16`` with ``int8``...)."""
    if type1 is type2:
        return type1
    found = type1._promote[type2]
    if found is None:
        raise RuntimeError(f"Promotion for uint16, uint32, uint64 types is not supported, "
                           f"attempted to promote {scalar_type_name(type1)} and "
                           f"{scalar_type_name(type2)}")
    return found


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


def wrap_integer(value: builtins.int, d: dtype) -> builtins.int:
    """The Python int ``value`` as integer dtype ``d`` holds it: two's complement wrap-around,
    as PyTorch's CPU kernels convert an out-of-range scalar operand (``uint8 + 300``)."""
    bits = 8 * d.itemsize
    low = -(1 << (bits - 1)) if d.is_signed else 0
    if low <= value < low + (1 << bits):
        return value
    return ((value - low) & ((1 << bits) - 1)) + low


# The C type names PyTorch's overflow messages give (``full``, ``fill_``)
_C_TYPE_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int",
                 "int64": "int64_t", "uint16": "uint16_t", "uint32": "uint32_t",
                 "uint64": "uint64_t"}


def checked_integer(value: builtins.int, d: dtype, c_name: builtins.bool = True) -> builtins.int:
    """A Python int stored into integer dtype ``d`` (``full``, ``fill_``, ``tensor([...])``):
    PyTorch's overflow check, which lets an unsigned type take negatives down to ``-max``
    (wrapped: ``full(2, -1, dtype=uint8)`` is 255), else RuntimeError naming the type
    (its C name with ``c_name``, as ``full``'s message; its dtype name otherwise)."""
    bits = 8 * d.itemsize
    high = (1 << (bits - (1 if d.is_signed else 0))) - 1
    low = -high - 1 if d.is_signed else -high
    if not low <= value <= high:
        name = _C_TYPE_NAMES.get(d.name, d.name) if c_name else d.name
        raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    return wrap_integer(value, d)


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
    if zero_t is not None:  # PyTorch's combine_categories(dimensioned, 0-dim)
        if result is None:
            result = zero_t
        elif not result.is_floating_point and (result is bool or zero_t.is_floating_point):
            result = promote_types(result, zero_t)
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
