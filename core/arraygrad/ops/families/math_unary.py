"""Elementwise unary math as PyTorch has it: exp2/log2/log10, hyperbolic and inverse
trigonometric functions, sinc, square, frac/fix, deg2rad/rad2deg, sgn/signbit, nan_to_num
and the floating classification predicates (isposinf, isneginf, isreal).

Each differentiable op is its forward on native arrays (``backend.xp`` only) and one rule
whose gradient is written in Tensor ops, so double backward works.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import no_grad as _no_grad
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import unary_float_data
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.conjugate import conj_of
from arraygrad.ops.rule import ELEMENTWISE, defop, identity
from arraygrad.tensor import Tensor

__all__ = ["FUNCTIONS", "METHODS", "INPLACE"]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def _require_tensor(name: str, input: Any) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _float_op(name: str, node: str, saves: str, vjp: Callable[[Any, Any], Any],
              forward: Callable[[Any, Any], Any], complex: bool = False
              ) -> Callable[[Tensor], Tensor]:
    """The float unary op ``name`` (integer and bool inputs compute in the default float
    dtype, as PyTorch): ``forward(xp, array)``, recorded by one rule ``node``. ``complex``:
    ``vjp`` holds for complex tensors (``g * conj(f'(z))``: ``conj_of``)."""
    rule = defop(node, jvp=ELEMENTWISE, saves=(saves,), vjp=(vjp,), complex=complex)

    def op(input: Tensor) -> Tensor:
        _require_tensor(name, input)
        return rule.record(unary_float_data(input, forward), input._backend, (input,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}``, as ``torch.{name}`` (gradient included)."
    return op


# holomorphic: the vjp is g * conj(f'(z)) (g * f'(x) for a real x)
exp2 = _float_op("exp2", "Exp2Backward0", "result", lambda g, n: g * conj_of(n.result) * _LN2,
                 lambda xp, a: 2.0 ** a, True)
log2 = _float_op("log2", "Log2Backward0", "self", lambda g, n: g / conj_of(n.self * _LN2),
                 lambda xp, a: xp.log2(a), True)
log10 = _float_op("log10", "Log10Backward0", "self", lambda g, n: g / conj_of(n.self * _LN10),
                  lambda xp, a: xp.log10(a), True)
sinh: Callable[[Tensor], Tensor] = _float_op(
    "sinh", "SinhBackward0", "self", lambda g, n: g * conj_of(cosh(n.self)),
    lambda xp, a: xp.sinh(a), True)
cosh: Callable[[Tensor], Tensor] = _float_op(
    "cosh", "CoshBackward0", "self", lambda g, n: g * conj_of(sinh(n.self)),
    lambda xp, a: xp.cosh(a), True)
asinh = _float_op("asinh", "AsinhBackward0", "self",
                  lambda g, n: g * conj_of(ew.rsqrt(n.self * n.self + 1)),
                  lambda xp, a: xp.asinh(a), True)


def _acosh_vjp(g: Any, n: Any) -> Any:
    # for complex z, rsqrt(z*z - 1) is not the branch of acosh's derivative (it flips sign
    # where Re z < 0): 1 / (sqrt(z - 1) sqrt(z + 1)) is; real inputs keep PyTorch's formula
    z = n.self
    if z.dtype.is_complex:
        return g * conj_of(ew.rsqrt(z - 1) * ew.rsqrt(z + 1))
    return g * ew.rsqrt(z * z - 1)


acosh = _float_op("acosh", "AcoshBackward0", "self", _acosh_vjp, lambda xp, a: xp.acosh(a),
                  True)
atanh = _float_op("atanh", "AtanhBackward0", "self",
                  lambda g, n: g / conj_of(1 - n.self * n.self), lambda xp, a: xp.atanh(a), True)
asin = _float_op("asin", "AsinBackward0", "self",
                 lambda g, n: g * conj_of(ew.rsqrt(1 - n.self * n.self)),
                 lambda xp, a: xp.asin(a), True)
acos = _float_op("acos", "AcosBackward0", "self",
                 lambda g, n: -g * conj_of(ew.rsqrt(1 - n.self * n.self)),
                 lambda xp, a: xp.acos(a), True)
atan = _float_op("atan", "AtanBackward0", "self",
                 lambda g, n: g / conj_of(1 + n.self * n.self), lambda xp, a: xp.atan(a), True)


def _sinc_forward(xp: Any, a: Any) -> Any:
    pa = a * math.pi
    safe = xp.where(a == 0, xp.ones_like(a), pa)  # no 0/0 in the unused lane
    return xp.where(a == 0, xp.ones_like(a), xp.sin(safe) / safe)


def _sinc_grad(g: Tensor, n: Any) -> Tensor:
    # d/dx sin(pi x)/(pi x) = (cos(pi x) pi x - sin(pi x)) / (pi x^2); 0 at x = 0 (PyTorch)
    x = n.self
    zero = x == 0
    safe = ew.where(zero, ew.full_like_scalar(x, 1.0), x)
    px = safe * math.pi
    d = (ew.cos(px) * px - ew.sin(px)) / (px * safe)
    return ew.where(zero, g * 0, g * d)


sinc = _float_op("sinc", "SincBackward0", "self", _sinc_grad, _sinc_forward)


def square(input: Tensor) -> Tensor:
    """``input * input``, as ``torch.square`` (``pow(input, 2)``: integers stay integers,
    bool becomes int64)."""
    _require_tensor("square", input)
    if input.dtype is _dt.bool:
        input = ew.to_dtype(input, _dt.int64)
    return ew.pow(input, 2)


FRAC = defop("FracBackward0", jvp=ELEMENTWISE, vjp=(identity,))


def frac(input: Tensor) -> Tensor:
    """The fractional part ``input - trunc(input)`` (sign of ``input``); floating only."""
    _require_tensor("frac", input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'frac: "frac_cpu" not implemented for \'{_dt.scalar_type_name(input.dtype)}\'')
    data = input._data
    return FRAC.record(data - input._backend.xp.trunc(data), input._backend, (input,))


def fix(input: Tensor) -> Tensor:
    """Alias of ``trunc`` (round toward zero)."""
    return ew.trunc(input)



def _angle_op(name: str, node: str, factor: float) -> Callable[[Tensor], Tensor]:
    """``deg2rad``/``rad2deg``: ``input * factor`` (integers compute in the default float
    dtype), recorded by its own rule as PyTorch names it."""
    rule = defop(node, jvp=ELEMENTWISE, vjp=(lambda g, n: g * factor,))

    def op(input: Tensor) -> Tensor:
        _require_tensor(name, input)
        return rule.record(unary_float_data(input, lambda xp, a: a * factor), input._backend,
                           (input,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}``: the input times {factor!r}."
    return op


deg2rad = _angle_op("deg2rad", "Deg2RadBackward0", math.pi / 180.0)
rad2deg = _angle_op("rad2deg", "Rad2DegBackward0", 180.0 / math.pi)
def sgn(input: Tensor) -> Tensor:
    """``sign`` for real tensors, NaN giving 0; ``z / |z|`` for complex ones (0 at 0), as
    ``torch.sgn`` (``ops.elementwise``, beside ``sign``)."""
    _require_tensor("sgn", input)
    return ew.sgn(input)


def signbit(input: Tensor) -> Tensor:
    """Where the sign bit is set (``-0.0`` included), as a bool tensor."""
    _require_tensor("signbit", input)
    refuse_complex_forward("signbit", input,
                           message="signbit is not implemented for complex tensors.")
    backend = input._backend
    data = input._data
    if input.dtype is _dt.bool:
        return Tensor._wrap(backend.xp.zeros(data.shape, dtype=data.dtype), backend)
    if not input.dtype.is_floating_point:
        return Tensor._wrap(data < 0, backend)
    return Tensor._wrap(backend.xp.signbit(data), backend)


NAN_TO_NUM = defop("NanToNumBackward0", jvp=ELEMENTWISE, saves=("self",),
                   vjp=(lambda g, n: g * ew.isfinite(n.self),))


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """NaN replaced by ``nan``, +-inf by ``posinf``/``neginf`` (default: the dtype's largest
    and smallest finite values); gradient 1 at finite elements, 0 elsewhere."""
    _require_tensor("nan_to_num", input)
    if input.dtype.is_complex:  # each part on its own, as PyTorch
        from arraygrad.ops.complex_views import view_as_complex, view_as_real

        return view_as_complex(nan_to_num(view_as_real(input), nan, posinf, neginf))
    backend = input._backend
    xp = backend.xp
    data = input._data
    if not input.dtype.is_floating_point:
        return Tensor._wrap(xp.asarray(data, copy=True), backend)
    info = xp.finfo(data.dtype)
    hi = float(info.max) if posinf is None else posinf
    lo = float(info.min) if neginf is None else neginf
    full = (lambda v: xp.full(data.shape, v, dtype=data.dtype))
    out = xp.where(xp.isnan(data), full(nan), data)
    out = xp.where(out == math.inf, full(hi), out)
    out = xp.where(out == -math.inf, full(lo), out)
    return NAN_TO_NUM.record(out, backend, (input,))


def isposinf(input: Tensor) -> Tensor:
    """Where elements are ``+inf``."""
    _require_tensor("isposinf", input)
    return Tensor._wrap(input._data == math.inf if input.dtype.is_floating_point
                        else input._backend.xp.zeros(input._data.shape,
                                                     dtype=input._backend.native_dtype(_dt.bool)),
                        input._backend)


def isneginf(input: Tensor) -> Tensor:
    """Where elements are ``-inf``."""
    _require_tensor("isneginf", input)
    return Tensor._wrap(input._data == -math.inf if input.dtype.is_floating_point
                        else input._backend.xp.zeros(input._data.shape,
                                                     dtype=input._backend.native_dtype(_dt.bool)),
                        input._backend)


def isreal(input: Tensor) -> Tensor:
    """Where elements are real: everywhere, as arraygrad has no complex dtypes."""
    _require_tensor("isreal", input)
    backend = input._backend
    return Tensor._wrap(backend.xp.ones(input._data.shape, dtype=backend.native_dtype(_dt.bool)),
                        backend)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "exp2": exp2, "log2": log2, "log10": log10,
    "sinh": sinh, "cosh": cosh, "asinh": asinh, "acosh": acosh, "atanh": atanh,
    "arcsinh": asinh, "arccosh": acosh, "arctanh": atanh,
    "asin": asin, "acos": acos, "atan": atan, "arcsin": asin, "arccos": acos, "arctan": atan,
    "sinc": sinc, "square": square, "frac": frac, "fix": fix,
    "deg2rad": deg2rad, "rad2deg": rad2deg, "sgn": sgn, "signbit": signbit,
    "nan_to_num": nan_to_num, "isposinf": isposinf, "isneginf": isneginf, "isreal": isreal,
}
"""Exported as ``arraygrad.<name>``."""

_METHOD_NAMES = ("exp2", "log2", "log10", "sinh", "cosh", "asinh", "acosh", "atanh",
                 "arcsinh", "arccosh", "arctanh", "asin", "acos", "atan", "arcsin", "arccos",
                 "arctan", "sinc", "square", "frac", "fix", "deg2rad", "rad2deg", "sgn",
                 "signbit", "nan_to_num", "isposinf", "isneginf", "isreal")
METHODS: dict[str, Callable[..., Any]] = {name: FUNCTIONS[name] for name in _METHOD_NAMES}
"""Bound as ``Tensor.<name>``."""

_INPLACE_NAMES = ("exp2", "log2", "log10", "sinh", "cosh", "asinh", "acosh", "atanh",
                  "arcsinh", "arccosh", "arctanh", "asin", "acos", "atan", "arcsin", "arccos",
                  "arctan", "sinc", "square", "frac", "fix", "deg2rad", "rad2deg", "sgn",
                  "nan_to_num")
INPLACE: dict[str, Callable[..., Any]] = {name + "_": FUNCTIONS[name] for name in _INPLACE_NAMES}
# the in-place forms of core ops that PyTorch has and the core's table lacks
INPLACE.update({"rsqrt_": ew.rsqrt, "reciprocal_": ew.reciprocal, "round_": ew.round,
                "sign_": ew.sign})
"""Bound as in-place ``Tensor.<name>_``."""
