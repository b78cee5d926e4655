"""A Python number on the left of a tensor operator (``2 * t``, ``2 - t``, ``2 ** t``...):
the reflected operators, recorded with PyTorch's graphs.

PyTorch computes ``number op tensor`` as an op *of the tensor*, so the tensor's edge comes
first in ``next_functions`` and the number has no edge at all where the op has a scalar
overload:

- ``2 + t``, ``2 * t``: ``t + 2``, ``t * 2`` (``AddBackward0``/``MulBackward0``, edges
  ``(t, None)``);
- ``2 - t``: ``rsub(t, 2)``, ``RsubBackward1`` with the one edge ``t``;
- ``2 / t``: ``t.reciprocal() * 2`` (``MulBackward0`` over ``ReciprocalBackward0``);
- ``2 ** t``: ``pow(2, t)``, ``PowBackward2`` with the one edge ``t``;
- ``2 // t``, ``2 % t``: one edge ``t`` (PyTorch records a node without a derivative
  there; arraygrad's give floor division's zero gradient and the remainder's
  ``-floor(2 / t)``).
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops import elementwise as ew
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.conjugate import conj_of
from arraygrad.ops.promotion import operands
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor

__all__ = ["radd", "rmul", "rsub", "rtruediv", "rpow", "rfloordiv", "rmod"]


RSUB_SCALAR = defop("RsubBackward1", jvp=ELEMENTWISE, inputs=("self",), params={"alpha": 1},
                    key="rsub/scalar",
                    vjp=(lambda g, n: -g if n.alpha == 1 else g * conj_of(-n.alpha),),
                    complex=True)


# The number is a param named ``base`` (PyTorch's ``_saved_self``: ``record`` cannot take a
# keyword named ``self``).
POW_SCALAR = defop("PowBackward2", jvp=ELEMENTWISE, inputs=("exponent",),
                   saves=("exponent", "result"), params=("base",), key="pow/scalar-base",
                   vjp=(lambda g, n: ew.pow_exponent_grad(g, n.base, n.exponent, n.result),),
                   complex=True)
FLOOR_DIVIDE_SCALAR = defop("FloorDivideBackward0", jvp=ELEMENTWISE, inputs=("other",),
                            key="floor_divide/scalar-dividend", vjp=(lambda g, n: g * 0,))
REMAINDER_SCALAR = defop("RemainderBackward0", jvp=ELEMENTWISE, inputs=("other",),
                         saves=("other",), params=("dividend",), key="remainder/scalar-dividend",
                         vjp=(lambda g, n: -g * ew.floor_divide(n.dividend, n.other),))


def radd(tensor: Tensor, number: Any) -> Tensor:
    """``number + tensor``, recorded as ``tensor + number``."""
    return ew.add(number, tensor) if isinstance(number, Tensor) else ew.add(tensor, number)


def rmul(tensor: Tensor, number: Any) -> Tensor:
    """``number * tensor``, recorded as ``tensor * number``."""
    return ew.mul(number, tensor) if isinstance(number, Tensor) else ew.mul(tensor, number)


def rsub(tensor: Tensor, number: Any) -> Tensor:
    """``number - tensor``: PyTorch's ``rsub(tensor, number)``."""
    if isinstance(number, Tensor):  # a Tensor subclass on the right reaches here first
        return ew.sub(number, tensor)
    if tensor.dtype is _dt.bool:
        raise RuntimeError("rsub: Subtraction, the `-` operator, with a bool tensor is not "
                           "supported. If you are trying to invert a mask, use the `~` or "
                           "`logical_not()` operator instead.")
    backend, nd, td, _, _ = operands("rsub", number, tensor)
    return RSUB_SCALAR.record(nd - td, backend, (tensor,))


def rtruediv(tensor: Tensor, number: Any) -> Tensor:
    """``number / tensor``, as PyTorch computes it: ``tensor.reciprocal() * number``."""
    if isinstance(number, Tensor):
        return ew.div(number, tensor)
    return ew.mul(ew.reciprocal(tensor), number)


def rpow(tensor: Tensor, number: Any) -> Tensor:
    """``number ** tensor``: PyTorch's ``pow(number, tensor)``."""
    if isinstance(number, Tensor):
        return ew.pow(number, tensor)
    backend, nd, td, _, _ = operands("pow", number, tensor)
    if td.dtype not in backend.differentiable_natives:
        if bool(backend.xp.any(td < 0)):
            raise RuntimeError("pow: Integers to negative integer powers are not allowed.")
    return POW_SCALAR.record(nd ** td, backend, (tensor,), base=number)


def rfloordiv(tensor: Tensor, number: Any) -> Tensor:
    """``number // tensor``, one edge: ``tensor``'s."""
    if isinstance(number, Tensor):
        return ew.floor_divide(number, tensor)
    backend, nd, td, _, _ = operands("floor_divide", number, tensor)
    ew._no_bool("floor_divide", backend, nd, td)
    refuse_complex_forward("div_floor", Tensor._wrap(td, backend))
    return FLOOR_DIVIDE_SCALAR.record(nd // td, backend, (tensor,))


def rmod(tensor: Tensor, number: Any) -> Tensor:
    """``number % tensor`` (the divisor's sign), one edge: ``tensor``'s."""
    if isinstance(number, Tensor):
        return ew.remainder(number, tensor)
    backend, nd, td, _, _ = operands("remainder", number, tensor)
    ew._no_bool("remainder", backend, nd, td)
    refuse_complex_forward("remainder", Tensor._wrap(td, backend))
    return REMAINDER_SCALAR.record(nd % td, backend, (tensor,), dividend=number)


# The name each goes by in the method tables and the profiler's events: PyTorch's op.
for _fn, _name in ((radd, "add"), (rmul, "mul"), (rsub, "rsub"), (rtruediv, "div"),
                   (rpow, "pow"), (rfloordiv, "floor_divide"), (rmod, "remainder")):
    _fn.__name__ = _name
