"""PyTorch's ``torch.sym_*`` utilities on the concrete numbers arraygrad's sizes always are.

PyTorch's tracing compilers (``torch.compile``, ``torch.export``) make sizes symbolic
(``SymInt``, ``SymFloat``, ``SymBool``), and these functions work on both kinds; arraygrad
never makes a symbolic value, so they compute on Python numbers exactly as PyTorch's do on
them, and the ``Sym*`` classes exist for ``isinstance`` checks that are always False.
"""

from __future__ import annotations

import builtins
import math
from typing import Any

__all__ = ["SymBool", "SymFloat", "SymInt", "sym_constrain_range",
           "sym_constrain_range_for_size", "sym_float", "sym_fresh_size", "sym_int", "sym_ite",
           "sym_max", "sym_min", "sym_not", "sym_sqrt", "sym_sum"]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


class _Symbolic:
    """A symbolic value of PyTorch's tracing compilers; arraygrad has none, so no value is an
    instance and constructing one raises TypeError."""

    def __init__(self, node: Any) -> None:
        raise TypeError(f"{type(self).__name__}: arraygrad has no symbolic values (its sizes are "
                        "always concrete Python numbers), so none can be constructed")


class SymInt(_Symbolic):
    """PyTorch's symbolic int (``isinstance(x, SymInt)`` is always False in arraygrad)."""


class SymFloat(_Symbolic):
    """PyTorch's symbolic float (``isinstance(x, SymFloat)`` is always False in arraygrad)."""


class SymBool(_Symbolic):
    """PyTorch's symbolic bool (``isinstance(x, SymBool)`` is always False in arraygrad)."""


def _real_types() -> tuple[type, ...]:
    # NumPy's scalars count as numbers where NumPy is installed, as in PyTorch
    import sys

    np = sys.modules.get("numpy")
    extra: tuple[type, ...] = (np.integer, np.floating) if np is not None else ()
    return (*extra, builtins.int, builtins.float)


def _float_types() -> tuple[type, ...]:
    import sys

    np = sys.modules.get("numpy")
    return ((np.floating,) if np is not None else ()) + (builtins.float,)


def sym_not(a: Any) -> bool:
    """Logical negation."""
    if hasattr(a, "__sym_not__"):
        return a.__sym_not__()
    return not a


def sym_float(a: Any) -> float:
    """``float(a)``."""
    if hasattr(a, "__sym_float__"):
        return a.__sym_float__()
    return builtins.float(a)


def sym_int(a: Any) -> int:
    """``int(a)`` (a float truncates toward zero)."""
    return builtins.int(a)


def _check_real(a: Any) -> None:
    kinds = _real_types()
    if not isinstance(a, kinds):
        raise AssertionError(f"expected {kinds}, got {type(a)}")


def sym_max(a: Any, b: Any) -> Any:
    """The larger of two numbers, a float if either is (unlike ``max``)."""
    _check_real(a)
    _check_real(b)
    if isinstance(a, _float_types()) or isinstance(b, _float_types()):
        return builtins.float(builtins.max(a, b))
    return builtins.max(a, b)


def sym_min(a: Any, b: Any) -> Any:
    """The smaller of two numbers, a float if either is (unlike ``min``)."""
    _check_real(a)
    _check_real(b)
    if isinstance(a, _float_types()) or isinstance(b, _float_types()):
        return builtins.float(builtins.min(a, b))
    return builtins.min(a, b)


def sym_sum(*args: Any) -> Any:
    """The sum of the numbers, given as arguments or as one list or tuple."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    return builtins.sum(args)


def sym_sqrt(a: Any) -> float:
    """``math.sqrt(a)``."""
    if hasattr(a, "__sym_sqrt__"):
        return a.__sym_sqrt__()
    return math.sqrt(a)


def sym_ite(b: Any, t: Any, f: Any) -> Any:
    """``t if b else f``; ``b`` must be a bool and ``t``, ``f`` of one type."""
    if not isinstance(b, builtins.bool):
        raise AssertionError(f"expected SymBool or bool, got {type(b)}")
    if type(t) is not type(f):
        raise AssertionError(f"type mismatch: {type(t)} vs {type(f)}")
    return t if b else f


def sym_fresh_size(expr: Any) -> Any:
    """The value of ``expr`` (a number or one-element tensor) as a Python number."""
    from arraygrad.tensor import Tensor

    if isinstance(expr, Tensor):
        return expr.item()
    from arraygrad.creation import tensor

    return tensor(expr).item()


def _constrain(size: Any, lo: int, hi: int) -> None:
    from arraygrad.tensor import Tensor

    if isinstance(size, Tensor) or not isinstance(size, builtins.int):
        return  # PyTorch checks only concrete ints
    if not lo <= size <= hi:
        raise RuntimeError(f"Invalid value range for {size} between [{lo}, {hi}].")


def sym_constrain_range(size: Any, min: int | None = None, max: int | None = None) -> None:
    """Assert that the int ``size`` lies in ``[min, max]`` (RuntimeError otherwise)."""
    _constrain(size, _INT64_MIN if min is None else min, _INT64_MAX if max is None else max)


def sym_constrain_range_for_size(size: Any, min: int | None = None,
                                 max: int | None = None) -> None:
    """Assert that the int ``size`` is a valid size in ``[min, max]`` (min default 0; a
    ``max`` of 2 or less is refused, as in PyTorch)."""
    if max is not None and max <= 2:
        raise RuntimeError(f"Max value to constrain_range_for_size must be greater than 2. got: "
                           f"{max}")
    _constrain(size, 0 if min is None else min, _INT64_MAX if max is None else max)
