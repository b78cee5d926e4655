"""Integer arithmetic as PyTorch has it: the bit shifts ``bitwise_left_shift`` and
``bitwise_right_shift`` (also ``<<``, ``>>`` and their in-place forms), and ``gcd``/``lcm``.

None is differentiable (integer results). Shifts follow PyTorch's CPU kernels where C leaves
the result undefined: a shift by a negative amount or by at least the type's width gives 0
(left, and right of a non-negative value) or -1 (right of a negative value).
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.ops.promotion import operands as _operands
from arraygrad.tensor import Tensor

__all__ = ["bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm", "FUNCTIONS", "METHODS",
           "INPLACE"]


def _integer_operands(name: str, kernel: str, input: Any, other: Any) -> Any:
    """``(backend, a, b)``: promoted integer arrays; NotImplementedError for a float dtype."""
    backend, ad, bd, ta, tb = _operands(name, input, other)
    d = _dt.result_type(input, other)
    if d.is_floating_point:
        raise NotImplementedError(f'"{kernel}_cpu" not implemented for '
                                  f"'{_dt.scalar_type_name(d)}'")
    xp = backend.xp
    native = backend.native_dtype(d)
    a = ad if hasattr(ad, "shape") else xp.asarray(ad, dtype=native)
    b = bd if hasattr(bd, "shape") else xp.asarray(bd, dtype=native)
    return backend, a, b


def _shift(name: str, kernel: str, left: bool) -> Callable[[Any, Any], Tensor]:
    def op(input: Any, other: Any) -> Tensor:
        backend, a, b = _integer_operands(name, kernel, input, other)
        xp = backend.xp
        if a.dtype == xp.bool:  # bool << bool: PyTorch shifts them as integers 0/1
            a, b = xp.astype(a, xp.int64), xp.astype(b, xp.int64)
        bits = 8 * backend.arraygrad_dtype(a.dtype).itemsize
        ok = (b >= 0) & (b < bits)
        amount = xp.where(ok, b, xp.zeros_like(b))
        if left:
            data = xp.where(ok, xp.bitwise_left_shift(a, amount), xp.zeros_like(a))
        else:
            full = xp.asarray(bits - 1, dtype=a.dtype)
            data = xp.where(ok, xp.bitwise_right_shift(a, amount), xp.bitwise_right_shift(a, full))
        return Tensor._wrap(data, backend)

    op.__name__ = op.__qualname__ = name
    direction = "left" if left else "right (arithmetic)"
    op.__doc__ = (f"Elementwise ``input`` shifted {direction} by ``other`` bits (integer or bool "
                  f"tensors, or a number on either side), as ``torch.{name}``.")
    return op


bitwise_left_shift = _shift("bitwise_left_shift", "lshift", True)
bitwise_right_shift = _shift("bitwise_right_shift", "rshift", False)


def _require_tensors(name: str, input: Any, other: Any) -> None:
    for pos, (arg, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(value).__name__}")


def _gcd_arrays(xp: Any, a: Any, b: Any) -> Any:
    """Euclid's algorithm, elementwise: at most ~90 rounds for 64-bit integers."""
    a, b = xp.abs(a), xp.abs(b)
    zero = xp.zeros_like(b)
    while bool(xp.any(b != 0)):
        nonzero = b != 0
        a, b = xp.where(nonzero, b, a), xp.where(nonzero, a % xp.where(nonzero, b, 1), zero)
    return a


def _no_bool(name: str, input: Tensor, other: Tensor) -> None:
    d = _dt.result_type(input, other)
    if d is _dt.bool:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")


def gcd(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise greatest common divisor of two integer tensors (``gcd(0, 0) = 0``)."""
    _require_tensors("gcd", input, other)
    _no_bool("gcd", input, other)
    backend, a, b = _integer_operands("gcd", "gcd", input, other)
    return Tensor._wrap(_gcd_arrays(backend.xp, a, b), backend)


def lcm(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise least common multiple of two integer tensors (0 when either is 0)."""
    _require_tensors("lcm", input, other)
    _no_bool("lcm", input, other)
    backend, a, b = _integer_operands("lcm", "lcm", input, other)
    xp = backend.xp
    g = _gcd_arrays(xp, a, b)
    zero = g == 0
    data = xp.where(zero, xp.zeros_like(g), xp.abs(a // xp.where(zero, xp.ones_like(g), g) * b))
    return Tensor._wrap(data, backend)


def _reflected(fn: Callable[[Any, Any], Tensor]) -> Callable[[Tensor, Any], Any]:
    """``other <op> self`` for the reflected operators (``2 << t``)."""
    def method(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (int, bool, Tensor)):
            return NotImplemented
        return fn(other, self)

    method.__name__ = f"r{fn.__name__}"
    method.__doc__ = f"``other`` and ``self`` in ``{fn.__name__}``, reflected."
    return method


def _operator(fn: Callable[[Any, Any], Tensor]) -> Callable[[Tensor, Any], Any]:
    def method(self: Tensor, other: Any) -> Any:
        if not isinstance(other, (int, bool, Tensor)):
            return NotImplemented
        return fn(self, other)

    method.__name__ = fn.__name__
    method.__doc__ = fn.__doc__
    return method


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "gcd": gcd, "lcm": lcm,
}
METHODS: dict[str, Callable[..., Any]] = {
    **FUNCTIONS,
    "__lshift__": _operator(bitwise_left_shift), "__rshift__": _operator(bitwise_right_shift),
    "__rlshift__": _reflected(bitwise_left_shift), "__rrshift__": _reflected(bitwise_right_shift),
}
INPLACE: dict[str, Callable[..., Any]] = {
    "bitwise_left_shift_": bitwise_left_shift, "bitwise_right_shift_": bitwise_right_shift,
    "__ilshift__": bitwise_left_shift, "__irshift__": bitwise_right_shift,
    "gcd_": gcd, "lcm_": lcm,
}
