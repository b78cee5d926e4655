"""Bessel and Airy functions: ``i0`` (``torch.i0``, ``Tensor.i0``/``i0_``) and
``torch.special``'s ``i0e``, ``i1``, ``i1e`` (differentiable, with PyTorch's formulas), and
``modified_bessel_i0/i1/k0/k1``, ``scaled_modified_bessel_k0/k1``, ``bessel_j0/j1/y0/y1``,
``spherical_bessel_j0``, ``airy_ai``, which PyTorch does not differentiate (their results
never require grad). The array work is ``ops._special``'s, or a plugin's kernel registered
under the op's name.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.ops import elementwise as ew
from arraygrad.ops._special import airy as _airy, bessel as _bessel
from arraygrad.ops.families._special_op import unary_op
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor

__all__ = ["i0", "i0e", "i1", "i1e", "NOT_DIFFERENTIABLE", "FUNCTIONS", "METHODS", "INPLACE"]

I0 = defop("I0Backward0", jvp=ELEMENTWISE, saves=("self",),
           vjp=(lambda g, n: g * i1(n.self),))
i0 = unary_op("i0", I0, _bessel.i0,
              "The modified Bessel function of the first kind, order 0, elementwise.")

I0E = defop("SpecialI0EBackward0", jvp=ELEMENTWISE, saves=("self", "result"),
            vjp=(lambda g, n: g * (i1e(n.self) - ew.sign(n.self) * n.result),))
i0e = unary_op("i0e", I0E, _bessel.i0e,
               "The exponentially scaled ``exp(-|x|) I0(x)``, elementwise.")


def _over_x(x: Tensor, at_zero: float, fn: Callable[[Tensor], Tensor]) -> Tensor:
    """``fn(x)``, but ``at_zero`` where x is 0 (x replaced by 1 there, so the unused lane
    cannot put 0/0 into a double backward)."""
    zero = x == 0
    return ew.where(zero, at_zero, fn(ew.where(zero, 1.0, x)))


# i1'(x) = i0(x) - i1(x)/x, 1/2 at 0
I1 = defop("SpecialI1Backward0", jvp=ELEMENTWISE, saves=("self",),
           vjp=(lambda g, n: g * _over_x(n.self, 0.5, lambda x: i0(x) - i1(x) / x),))
i1: Callable[[Tensor], Tensor] = unary_op("i1", I1, _bessel.i1,
              "The modified Bessel function of the first kind, order 1, elementwise.")

# i1e'(x) = i0e(x) - i1e(x) (sign(x) + 1/x), 1/2 at 0
I1E = defop("SpecialI1EBackward0", jvp=ELEMENTWISE, saves=("self",),
            vjp=(lambda g, n: g * _over_x(
                n.self, 0.5, lambda x: i0e(x) - i1e(x) * (ew.sign(x) + 1 / x)),))
i1e: Callable[[Tensor], Tensor] = unary_op("i1e", I1E, _bessel.i1e,
               "The exponentially scaled ``exp(-|x|) I1(x)``, elementwise.")

NOT_DIFFERENTIABLE: dict[str, Callable[[Tensor], Tensor]] = {
    name: unary_op(name, None, fn, doc) for name, fn, doc in (
        ("modified_bessel_i0", _bessel.i0, "The modified Bessel function I0 (no gradient)."),
        ("modified_bessel_i1", _bessel.i1, "The modified Bessel function I1 (no gradient)."),
        ("modified_bessel_k0", _bessel.k0,
         "The modified Bessel function of the second kind K0 (no gradient)."),
        ("modified_bessel_k1", _bessel.k1,
         "The modified Bessel function of the second kind K1 (no gradient)."),
        ("scaled_modified_bessel_k0", _bessel.k0e, "``exp(x) K0(x)`` (no gradient)."),
        ("scaled_modified_bessel_k1", _bessel.k1e, "``exp(x) K1(x)`` (no gradient)."),
        ("bessel_j0", _bessel.j0, "The Bessel function of the first kind J0 (no gradient)."),
        ("bessel_j1", _bessel.j1, "The Bessel function of the first kind J1 (no gradient)."),
        ("bessel_y0", _bessel.y0, "The Bessel function of the second kind Y0 (no gradient)."),
        ("bessel_y1", _bessel.y1, "The Bessel function of the second kind Y1 (no gradient)."),
        ("spherical_bessel_j0", _bessel.spherical_j0,
         "The spherical Bessel function ``sin(x) / x`` (no gradient)."),
        ("airy_ai", _airy.airy_ai, "The Airy function Ai (no gradient)."),
    )}
"""``torch.special``'s Bessel functions PyTorch does not differentiate."""


def i0_(input: Tensor) -> Tensor:
    """In-place ``i0`` of ``input``; returns ``input``."""
    result: Tensor = input.i0_()
    return result


FUNCTIONS: dict[str, Callable[..., Any]] = {"i0": i0, "i0_": i0_}
"""Exported as ``arraygrad.<name>``."""

METHODS: dict[str, Callable[..., Any]] = {"i0": i0}
"""Bound as ``Tensor.<name>``."""

INPLACE: dict[str, Callable[..., Any]] = {"i0_": i0}
"""Bound as in-place ``Tensor.<name>``."""
