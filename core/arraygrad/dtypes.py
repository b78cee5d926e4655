"""arraygrad's dtypes and PyTorch's type-promotion rules.

A dtype is a small named object (``arraygrad.float32``); each backend maps it
to its own native dtype (and may lack some: ``Backend.supported_dtypes``).
Promotion follows PyTorch, not NumPy: categories bool < integer < floating < complex;
within a category ``promote_types`` follows PyTorch's table (``uint8 + int8 -> int16``,
``bfloat16 + float16 -> float32``, ``complex64 + float64 -> complex128``; ``uint16/32/64``
promote with nothing but themselves and the floating types, as in PyTorch 2.13); a Python
scalar or a 0-dim tensor only changes the result when it is of a higher category than the
dimensioned operands (``int_tensor * 1.5`` is float32), and a complex one keeps a floating
operand's precision (``float64_tensor * 1j`` is complex128: PyTorch's combine_categories).
Python complex numbers make the default complex dtype, which follows the default floating
dtype (complex64 for float32, complex128 for float64).
"""

from __future__ import annotations

import builtins
import struct as _struct
import sys as _sys
from typing import Any

__all__ = [
    "dtype", "float16", "bfloat16", "float32", "float64", "uint8", "int8", "int16", "int32",
    "int64", "uint16", "uint32", "uint64", "bool", "complex64", "complex128", "cfloat",
    "cdouble", "get_default_dtype", "set_default_dtype",
    "promote_types", "result_type", "scalar_type_name",
]

_BOOL, _INT, _FLOAT, _COMPLEX = 0, 1, 2, 3


class dtype:
    """A tensor element type, named as in PyTorch (``arraygrad.float32``)."""

    __slots__ = ("name", "category", "itemsize", "is_floating_point", "is_complex", "is_signed",
                 "_promote")

    # The module below rebinds ``int``/``bool``/``float`` to dtypes (PyTorch's names),
    # hence ``builtins`` in these annotations.
    name: str
    category: builtins.int
    itemsize: builtins.int
    is_floating_point: builtins.bool
    is_complex: builtins.bool
    """Whether the type is complex (``complex64``, ``complex128``); complex types are not
    floating point, as in PyTorch."""
    is_signed: builtins.bool
    """Whether the type holds negative values (PyTorch's ``is_signed``: not bool, not uintN)."""
    _promote: dict["dtype", "dtype | None"]

    def __init__(self, name: str, category: builtins.int, itemsize: builtins.int,
                 signed: builtins.bool = True):
        self.name = name
        self.category = category
        self.itemsize = itemsize
        self.is_floating_point = category == _FLOAT
        self.is_complex = category == _COMPLEX
        self.is_signed = signed
        self._promote = {}

    def __repr__(self) -> str:
        return f"arraygrad.{self.name}"

    @property
    def abbr(self) -> str:
        """PyTorch's short name: ``f32``, ``i64``, ``u8``, ``bf16``, ``b8``, ``c64``."""
        if self.name == "bfloat16":
            return "bf16"
        kind = {_BOOL: "b", _INT: "i" if self.is_signed else "u", _FLOAT: "f",
                _COMPLEX: "c"}[self.category]
        return f"{kind}{8 * self.itemsize}"

    def to_real(self) -> "dtype":
        """The real dtype of this one: a complex type's parts (``complex64 -> float32``),
        any other type itself."""
        return _REAL_OF.get(self, self)

    def to_complex(self) -> "dtype":
        """The complex dtype of this floating one (``float32 -> complex64``, ``float64 ->
        complex128``, bfloat16's is complex64 as in PyTorch); a complex type is itself.
        RuntimeError for the others, as PyTorch (float16's, complex32, arraygrad lacks)."""
        if self.is_complex:
            return self
        found = _COMPLEX_OF.get(self)
        if found is None:
            if self.name == "float16":
                raise RuntimeError("to_complex: float16's complex type is complex32 (ComplexHalf), "
                                   "which arraygrad does not have (NumPy and the Array API "
                                   "standard have no 32-bit complex dtype)")
            raise RuntimeError(f"Unknown Complex ScalarType for {scalar_type_name(self)}")
        return found

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
complex64 = dtype("complex64", _COMPLEX, 8)
complex128 = dtype("complex128", _COMPLEX, 16)

# PyTorch's aliases.
half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001
cfloat, cdouble = complex64, complex128

ALL_DTYPES = (float16, bfloat16, float32, float64, uint8, int8, int16, int32, int64, uint16,
              uint32, uint64, bool, complex64, complex128)
BY_NAME = {d.name: d for d in ALL_DTYPES}
_REAL_OF = {complex64: float32, complex128: float64}
_COMPLEX_OF = {float32: complex64, float64: complex128, bfloat16: complex64}

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
        if high.category == _COMPLEX and low is float64:  # complex64 + float64: complex128
            return complex128
        return high
    if a.category == _FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32  # neither holds the other
        return a if a.itemsize >= b.itemsize else b
    if a.category == _COMPLEX:
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
# one (``arraygrad.complex32``) raises an AttributeError that says so, not a bare "no attribute".
MISSING: dict[str, str | None] = {"complex32": "complex64", "chalf": "complex64"}


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


def default_complex_dtype() -> dtype:
    """The dtype of complex tensors made from Python complex numbers: the default floating
    dtype's complex type (complex64 for float32, complex128 for float64), as PyTorch. A
    float16 default gives complex64 where PyTorch gives complex32, which arraygrad lacks
    (docs/differences.md); a bfloat16 default has none (PyTorch's RuntimeError)."""
    d = _default_float
    if d is float64:
        return complex128
    if d is float32 or d is float16:
        return complex64
    raise RuntimeError("invalid default scalar type for complex")


def complex_of_floating(d: dtype) -> dtype:
    """The complex type a complex operand takes beside floating type ``d`` (PyTorch's
    ``toComplexType``): ``d.to_complex()``, and complex64 for float16, whose complex32
    arraygrad lacks (docs/differences.md)."""
    return complex64 if d is float16 else d.to_complex()


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
                      "uint32": "UInt32", "uint64": "UInt64", "complex64": "ComplexFloat",
                      "complex128": "ComplexDouble"}


# the ``struct`` module's code of one element of each dtype (bfloat16 has none: see ``unpack``;
# a complex element is two of its real type's, real part first)
STRUCT_CODES = {"float16": "e", "float32": "f", "float64": "d", "uint8": "B", "int8": "b",
                "int16": "h", "uint16": "H", "int32": "i", "uint32": "I", "int64": "q",
                "uint64": "Q", "bool": "?"}


def unpack(data: bytes, d: dtype, count: builtins.int, order: str = "<") -> list[Any]:
    """The first ``count`` elements of dtype ``d`` in ``data`` as Python values (``order``:
    a ``struct`` byte order, ``<`` little-endian). A bfloat16 is read as the float32 whose
    upper half it is (exact); a complex element as its two parts, real first."""
    if d.is_complex:
        parts = unpack(data, d.to_real(), 2 * count, order)
        return [builtins.complex(parts[i], parts[i + 1]) for i in range(0, 2 * count, 2)]
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
_py_complex = (0j).__class__


def dtype_of_scalar(value: object) -> dtype:
    """The dtype a tensor made from this Python scalar gets (a complex number: the default
    complex dtype)."""
    if isinstance(value, _py_bool):
        return bool
    if isinstance(value, _py_int):
        return int64
    if isinstance(value, _py_complex):
        return default_complex_dtype()
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


def unpacked_int(value: Any) -> None:
    """PyTorch's ``OverflowError`` for a Python int fill value (``full``, ``fill_``) that no
    64-bit integer holds: it unpacks one as int64, or as uint64 when positive."""
    if type(value) is builtins.int:
        if value > (1 << 64) - 1:
            raise OverflowError("int too big to convert")
        if value < -(1 << 63):
            raise OverflowError("can't convert negative int to unsigned")


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
    then Python scalars (PyTorch's ``combine_categories``; a complex tier above a floating
    one keeps the floating one's precision: ``float64_tensor * 1j`` is complex128).
    """
    dim_t: dtype | None = None
    zero_t: dtype | None = None
    wrapped: dtype | None = None
    for op in operands:
        d = getattr(op, "dtype", None)
        if not isinstance(d, dtype):  # a scalar (a NumPy scalar's dtype is NumPy's: a scalar)
            s = dtype_of_scalar(op)
            wrapped = s if wrapped is None else promote_types(wrapped, s)
        elif op.ndim:
            dim_t = d if dim_t is None else promote_types(dim_t, d)
        else:
            zero_t = d if zero_t is None else promote_types(zero_t, d)
    result = _combine(dim_t, _combine(zero_t, wrapped))
    if result is None:  # no operands at all
        raise TypeError("result_type: expected at least one operand")
    return result


def _combine(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """PyTorch's ``combine_categories``: the ``lower`` tier counts only when its category is
    above ``higher``'s (a complex tier over a floating one takes its precision)."""
    if higher is None:
        return lower
    if lower is None or higher.is_complex:
        return higher
    if lower.is_complex:
        return complex_of_floating(higher) if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher

