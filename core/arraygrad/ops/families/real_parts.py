"""PyTorch's complex-number functions on real tensors, with PyTorch's real-tensor semantics
(arraygrad has no complex dtype): ``real`` and ``conj`` are the tensor itself, ``imag`` raises
PyTorch's RuntimeError, ``angle`` is ``pi`` for negative values and 0 otherwise (NaN stays
NaN; integers give the default float dtype), and no tensor is ever a lazily conjugated or
negated view (``is_conj``/``is_neg`` are False, ``resolve_conj``/``resolve_neg`` return it).
"""

from __future__ import annotations

import math
from typing import Any, Callable

from arraygrad.ops.casting import to_float_data
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor

__all__ = ["real", "imag", "angle", "conj", "conj_physical", "resolve_conj", "resolve_neg",
           "is_conj", "is_neg", "FUNCTIONS", "METHODS"]


def _tensor(op: str, input: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    return input


def real(input: Tensor) -> Tensor:
    """The real part: a real tensor itself."""
    return _tensor("real", input)


def imag(input: Tensor) -> Tensor:
    """The imaginary part: only complex tensors have one (none here), as PyTorch raises."""
    _tensor("imag", input)
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


# the angle of a real number is constant (0 or pi) where it is defined: zero gradient
ANGLE = defop("AngleBackward0", jvp=ELEMENTWISE, vjp=(lambda g, n: g * 0,))


def angle(input: Tensor) -> Tensor:
    """The argument of each element: ``pi`` where negative, 0 elsewhere, NaN for NaN
    (integers and bools give the default float dtype)."""
    x = _tensor("angle", input)
    backend = x._backend
    xp = backend.xp
    data = to_float_data(x)
    zero = xp.zeros_like(data)
    result = xp.where(data < 0, xp.full_like(data, math.pi), xp.where(xp.isnan(data), data, zero))
    return ANGLE.record(result, backend, (x,))


def conj(input: Tensor) -> Tensor:
    """The complex conjugate: a real tensor itself."""
    return _tensor("conj", input)


def conj_physical(input: Tensor) -> Tensor:
    """The materialized complex conjugate: a real tensor itself."""
    return _tensor("conj_physical", input)


def conj_physical_(input: Tensor) -> Tensor:
    """In-place ``conj_physical``: nothing to do for a real tensor; returns it."""
    return _tensor("conj_physical_", input)


def resolve_conj(input: Tensor) -> Tensor:
    """``input`` with a lazy conjugation applied: never lazy here, so ``input`` itself."""
    return _tensor("resolve_conj", input)


def resolve_neg(input: Tensor) -> Tensor:
    """``input`` with a lazy negation applied: never lazy here, so ``input`` itself."""
    return _tensor("resolve_neg", input)


def is_conj(input: Tensor) -> bool:
    """Whether ``input`` is a lazily conjugated view: never here."""
    _tensor("is_conj", input)
    return False


def is_neg(input: Tensor) -> bool:
    """Whether ``input`` is a lazily negated view: never here."""
    _tensor("is_neg", input)
    return False


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "real": real, "imag": imag, "angle": angle, "conj": conj, "conj_physical": conj_physical,
    "conj_physical_": conj_physical_, "resolve_conj": resolve_conj, "resolve_neg": resolve_neg,
    "is_conj": is_conj, "is_neg": is_neg,
}
METHODS: dict[str, Any] = {
    **{name: fn for name, fn in FUNCTIONS.items() if name not in ("real", "imag")},
    "real": property(real, doc="The real part: a real tensor itself."),
    "imag": property(imag, doc="The imaginary part: raises for a real tensor, as PyTorch."),
}
