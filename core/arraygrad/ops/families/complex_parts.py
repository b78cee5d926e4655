"""Complex numbers' functions: ``angle``, ``conj``/``conj_physical``, and PyTorch's lazy
conjugate and negative bits (``is_conj``, ``resolve_conj``, ``is_neg``, ``resolve_neg``); with
the views and constructors of ``ops.complex_views`` (``real``, ``imag``, ``view_as_real``,
``view_as_complex``, ``complex``, ``polar``), exported from here.

arraygrad keeps no lazy bits (docs/complex.md): ``conj()`` of a complex tensor holds the
conjugated values at once, so no tensor is ever a lazily conjugated or negated view
(``is_conj``/``is_neg`` are False, ``resolve_conj``/``resolve_neg`` return the tensor). On
real tensors these are PyTorch's real-tensor forms: ``conj`` is the tensor itself and
``angle`` is ``pi`` for negative values, 0 otherwise (NaN stays NaN; integers give the
default float dtype).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from arraygrad.ops import complex_views as _views, conjugate as _conj
from arraygrad.ops.arguments import tensor_arg as _tensor
from arraygrad.ops.casting import to_float_data
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor

__all__ = ["angle", "conj", "conj_physical", "conj_physical_", "resolve_conj", "resolve_neg",
           "is_conj", "is_neg", "FUNCTIONS", "METHODS"]


def _angle_grad(g: Tensor, n: Any) -> Tensor:
    """0 for a real input (the angle is constant where defined); for a complex ``z``,
    ``g * i z / |z|**2`` (PyTorch's convention), 0 at 0."""
    z = n.self
    if z._data.dtype not in z._backend.complex_natives:
        return g * 0
    from arraygrad.ops import elementwise as ew

    square = ew.abs(z) ** 2
    return ew.where(square == 0, 0.0, g * (z * 1j) / square)


ANGLE = defop("AngleBackward0", jvp=ELEMENTWISE, saves=("self",), vjp=(_angle_grad,),
              complex=True)


def angle(input: Tensor) -> Tensor:
    """The argument of each element: ``atan2(imag, real)`` for complex tensors; for real
    ones ``pi`` where negative, 0 elsewhere, NaN for NaN (integers and bools give the default
    float dtype)."""
    x = _tensor("angle", input)
    backend = x._backend
    xp = backend.xp
    if x._data.dtype in backend.complex_natives:
        result = xp.atan2(xp.imag(x._data), xp.real(x._data))
    else:
        data = to_float_data(x)
        zero = xp.zeros_like(data)
        result = xp.where(data < 0, xp.full_like(data, math.pi),
                          xp.where(xp.isnan(data), data, zero))
    return ANGLE.record(result, backend, (x,))


def conj(input: Tensor) -> Tensor:
    """The complex conjugate (new values, no lazy bit); a real tensor itself."""
    return _conj.conj(_tensor("conj", input))


def conj_physical(input: Tensor) -> Tensor:
    """The complex conjugate, computed now; a real tensor itself."""
    return _conj.conj_physical(_tensor("conj_physical", input))


def conj_physical_(input: Tensor) -> Tensor:
    """In-place ``conj_physical``: the tensor's values conjugated; returns it (nothing to do
    for a real tensor)."""
    x = _tensor("conj_physical_", input)
    if not x.dtype.is_complex:
        return x
    return x.copy_(_conj.conj_physical(x))


def resolve_conj(input: Tensor) -> Tensor:
    """``input`` with a lazy conjugation applied: never lazy here, so ``input`` itself."""
    return _tensor("resolve_conj", input)


def resolve_neg(input: Tensor) -> Tensor:
    """``input`` with a lazy negation applied: never lazy here, so ``input`` itself."""
    return _tensor("resolve_neg", input)


def is_conj(input: Tensor) -> bool:
    """Whether ``input`` is a lazily conjugated view: never here (``conj()`` computes)."""
    _tensor("is_conj", input)
    return False


def is_neg(input: Tensor) -> bool:
    """Whether ``input`` is a lazily negated view: never here."""
    _tensor("is_neg", input)
    return False


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "angle": angle, "conj": conj, "conj_physical": conj_physical,
    "conj_physical_": conj_physical_, "resolve_conj": resolve_conj, "resolve_neg": resolve_neg,
    "is_conj": is_conj, "is_neg": is_neg, "view_as_real": _views.view_as_real,
    "view_as_complex": _views.view_as_complex, "real": _views.real, "imag": _views.imag,
    "complex": _views.complex, "polar": _views.polar,
    "view_as_real_copy": _views.view_as_real_copy,
    "view_as_complex_copy": _views.view_as_complex_copy,
}
METHODS: dict[str, Any] = {
    **{name: FUNCTIONS[name] for name in ("angle", "conj", "conj_physical", "conj_physical_",
                                          "resolve_conj", "resolve_neg", "is_conj", "is_neg")},
    "real": property(_views.real, _views.set_part(_views.real),
                     doc="The real part (a view of a complex tensor; settable: writes through)."),
    "imag": property(_views.imag, _views.set_part(_views.imag),
                     doc="The imaginary part (a view; settable: writes through). Real tensors "
                         "have none, as PyTorch raises."),
}
