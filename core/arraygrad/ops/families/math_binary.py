"""Elementwise binary and ternary math as PyTorch has it: atan2, hypot, copysign, fmod,
logaddexp(2), fmax/fmin, float_power, heaviside, lerp, addcmul, addcdiv, clamp_min/max and
the closeness tests (isclose, allclose, equal).

Each differentiable op is its forward on native arrays (``backend.xp`` only) and one rule
whose gradients are written in Tensor ops, so double backward works. Broadcasting undoing
and the cast back to an input's dtype are the recorder's.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.ops import elementwise as ew
from arraygrad.ops.broadcast import broadcast_shapes
from arraygrad.ops.casting import cast_data, in_opmath
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.conjugate import conj_of
from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.promotion import operands as _operands, same_backend
from arraygrad.ops.rule import ELEMENTWISE, defop, identity
from arraygrad.ops.value_checks import require_values
from arraygrad.tensor import Tensor

__all__ = ["FUNCTIONS", "METHODS", "INPLACE"]

_LN2 = math.log(2.0)


def _tensors(name: str, input: Any, other: Any) -> None:
    """PyTorch's TypeError for ops whose both operands must be tensors."""
    for pos, (arg, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not "
                            f"{type(value).__name__}")


def _array(xp: Any, value: Any, like: Any) -> Any:
    """``value`` (an array or a Python number) as an array of ``like``'s dtype."""
    return value if hasattr(value, "shape") else xp.asarray(value, dtype=like.dtype)


def _pair(ad: Any, bd: Any, xp: Any) -> tuple[Any, Any]:
    like = ad if hasattr(ad, "shape") else bd
    return _array(xp, ad, like), _array(xp, bd, like)


def _floating(name: str, input: Tensor, other: Tensor) -> Any:
    """Operands promoted as PyTorch does for a float-only op: integer tensors raise."""
    backend, ad, bd, ta, tb = _operands(name, input, other)
    native = (ad if hasattr(ad, "dtype") else bd).dtype
    if native in backend.complex_natives:  # (PyTorch has logaddexp's: docs/complex.md)
        raise NotImplementedError(f"{name}: complex tensors are not supported here "
                                  "(docs/complex.md)")
    if native not in backend.floating_natives:
        raise NotImplementedError(f'{name}: "{name}_cpu" not implemented for '
                                  f"'{_dt.result_type(input, other)}'")
    return backend, ad, bd, ta, tb


def _zero(g: Tensor, n: Any) -> Tensor:
    return g * 0


# -- atan2, hypot ---------------------------------------------------------------------------

def _sq_sum(n: Any) -> Tensor:
    return n.self * n.self + n.other * n.other


def _recip_sq_sum(n: Any) -> Tensor:
    """``1 / (self**2 + other**2)``, taken as 0 where the sum is 0 (PyTorch's atan2
    gradient at the origin is 0, not NaN)."""
    sq = _sq_sum(n)
    zero = sq == 0
    return ew.where(zero, sq * 0, 1 / ew.where(zero, ew.full_like_scalar(sq, 1.0), sq))


ATAN2 = defop("Atan2Backward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
              vjp=(lambda g, n: g * n.other * _recip_sq_sum(n),
                   lambda g, n: -g * n.self * _recip_sq_sum(n)))


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """The angle of the point ``(other, input)``: ``atan(input / other)`` in the right
    quadrant (integers compute in the default float dtype)."""
    _tensors("atan2", input, other)
    refuse_complex_forward("atan2", input, other)
    backend, ad, bd, ta, tb = _operands("atan2", input, other, floating=True)
    return ATAN2.record(backend.xp.atan2(ad, bd), backend, (input, other))


HYPOT = defop("HypotBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other", "result"),
              vjp=(lambda g, n: g * n.self / n.result, lambda g, n: g * n.other / n.result))


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """``sqrt(input**2 + other**2)`` without intermediate overflow; floating only."""
    _tensors("hypot", input, other)
    backend, ad, bd, ta, tb = _floating("hypot", input, other)
    return HYPOT.record(backend.xp.hypot(ad, bd), backend, (input, other))


# -- copysign, fmod ---------------------------------------------------------------------------

def _copysign_grad(g: Tensor, n: Any) -> Tensor:
    # d/dx |x| * s = result / x, and 0 at x == 0 (as PyTorch)
    x = n.self
    zero = x == 0
    safe = ew.where(zero, ew.full_like_scalar(x, 1.0), x)
    return ew.where(zero, g * 0, g * n.result / safe)


COPYSIGN = defop("CopysignBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "result"),
                 vjp=(_copysign_grad, _zero))
COPYSIGN_SCALAR = defop("CopysignBackward1", jvp=ELEMENTWISE, saves=("self", "result"), vjp=(_copysign_grad,))


def copysign(input: Tensor, other: Any) -> Tensor:
    """``|input|`` with the sign of ``other`` (a tensor or a number); always floating."""
    refuse_complex_forward("copysign", input, other)
    backend, ad, bd, ta, tb = _operands("copysign", input, other, floating=True)
    xp = backend.xp
    a, b = _pair(ad, bd, xp)
    data = xp.copysign(a, b)
    if isinstance(other, Tensor):
        return COPYSIGN.record(data, backend, (input, other))
    return COPYSIGN_SCALAR.record(data, backend, (input,))


FMOD = defop("FmodBackward1", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
             uses=((), ("self", "other")),
             vjp=(identity, lambda g, n: -g * ew.trunc(n.self / n.other)))
FMOD_SCALAR = defop("FmodBackward0", jvp=ELEMENTWISE, vjp=(identity,))


def fmod(input: Tensor, other: Any) -> Tensor:
    """C's ``fmod``: the remainder of ``input / other`` with the sign of ``input``."""
    refuse_complex_forward("fmod", input, other)
    backend, ad, bd, ta, tb = _operands("fmod", input, other)
    xp = backend.xp
    a, b = _pair(ad, bd, xp)
    if a.dtype not in backend.floating_natives:
        if a.dtype == backend.native_dtype(_dt.bool):
            raise NotImplementedError("fmod: \"fmod_cpu\" not implemented for 'Bool'")
        ew.integer_divisor_check(backend, b)
        # C's sign rule from the floored remainder (no abs: abs(int8 -128) overflows)
        r = xp.remainder(a, b)
        data = xp.where((r != 0) & ((r < 0) != (a < 0)), r - b, r)
    else:
        # remainder of the magnitudes is exact (no sign fix-up), then input's sign
        data = xp.copysign(xp.remainder(xp.abs(a), xp.abs(b)), a)
    if isinstance(other, Tensor):
        return FMOD.record(data, backend, (input, other))
    return FMOD_SCALAR.record(data, backend, (input,))


# -- logaddexp, logaddexp2 --------------------------------------------------------------------

LOGADDEXP = defop("LogaddexpBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
                  vjp=(lambda g, n: g * ew.sigmoid(n.self - n.other),
                       lambda g, n: g * ew.sigmoid(n.other - n.self)))
LOGADDEXP2 = defop("Logaddexp2Backward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
                   vjp=(lambda g, n: g * ew.sigmoid((n.self - n.other) * _LN2),
                        lambda g, n: g * ew.sigmoid((n.other - n.self) * _LN2)))


def _logaddexp_data(xp: Any, a: Any, b: Any, base2: bool) -> Any:
    m = xp.maximum(a, b)
    d = -xp.abs(a - b)
    out = m + (xp.log1p(2.0 ** d) / _LN2 if base2 else xp.log1p(xp.exp(d)))
    # equal infinities: inf - inf is NaN above, the answer is the infinity itself
    return xp.where(xp.isinf(a) & (a == b), a, out)


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """``log(exp(input) + exp(other))`` without overflow; floating only."""
    _tensors("logaddexp", input, other)
    backend, ad, bd, ta, tb = _floating("logaddexp", input, other)
    data = in_opmath(backend, lambda a, b: _logaddexp_data(backend.xp, a, b, False), ad, bd)
    return LOGADDEXP.record(data, backend, (input, other))


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """``log2(2**input + 2**other)`` without overflow; floating only."""
    _tensors("logaddexp2", input, other)
    backend, ad, bd, ta, tb = _floating("logaddexp2", input, other)
    data = in_opmath(backend, lambda a, b: _logaddexp_data(backend.xp, a, b, True), ad, bd)
    return LOGADDEXP2.record(data, backend, (input, other))


# -- fmax, fmin -------------------------------------------------------------------------------

def _fmaxmin(name: str, node: str, wins: Callable[[Any, Any], Any]) -> Callable[..., Tensor]:
    """``fmax``/``fmin``: like maximum/minimum but a NaN loses to a number; the gradient goes
    wholly to the chosen operand (ties: to ``input``), as PyTorch."""
    def picks_self(n: Any) -> Tensor:
        return wins(n.self, n.other) | ew.isnan(n.other)

    rule = defop(node, jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
                 vjp=(lambda g, n: ew.where(picks_self(n), g, g * 0),
                      lambda g, n: ew.where(picks_self(n), g * 0, g)))

    def op(input: Tensor, other: Tensor) -> Tensor:
        _tensors(name, input, other)
        backend, ad, bd, ta, tb = _operands(name, input, other)
        xp = backend.xp
        take = wins(ad, bd)
        if ad.dtype in backend.floating_natives:
            take = take | xp.isnan(bd)
        return rule.record(xp.where(take, ad, bd), backend, (input, other))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"Elementwise ``{name}`` (NaN-ignoring: a NaN is chosen only when both "
                  "operands are NaN).")
    return op


fmax = _fmaxmin("fmax", "FmaxBackward0", lambda a, b: a >= b)
fmin = _fmaxmin("fmin", "FminBackward0", lambda a, b: a <= b)


# -- float_power, heaviside -------------------------------------------------------------------

def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in float64 (both operands cast first), as PyTorch;
    complex128 when either is complex."""
    wide = _dt.complex128 if any(
        isinstance(v, complex) or (isinstance(v, Tensor) and v.dtype.is_complex)
        for v in (input, exponent)) else _dt.float64
    if isinstance(input, Tensor):
        input = ew.to_dtype(input, wide)
    elif isinstance(exponent, Tensor):
        input = complex(input) if wide is _dt.complex128 else float(input)
    if isinstance(exponent, Tensor):
        exponent = ew.to_dtype(exponent, wide)
    elif not isinstance(input, Tensor):
        raise TypeError("float_power(): expected at least one Tensor operand")
    return ew.pow(input, exponent)


def _float_power_inplace(input: Tensor, exponent: Any) -> Tensor:
    """``float_power_``: only a float64 tensor can hold the result (PyTorch's check)."""
    if input.dtype is not _dt.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_dt.scalar_type_name(input.dtype)} "
                           "but the operation's result requires dtype Double")
    return float_power(input, exponent)


def _heaviside_grad(g: Tensor, n: Any) -> Tensor:
    raise RuntimeError("derivative for aten::heaviside is not implemented")


HEAVISIDE = defop("HeavisideBackward0", jvp=ELEMENTWISE, inputs=("self", "values"),
                  vjp=(_heaviside_grad, _heaviside_grad))


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """0 where ``input < 0``, ``values`` where ``input == 0``, 1 where ``input > 0``.
    Not differentiable: a backward through it raises, as in PyTorch."""
    _tensors("heaviside", input, values)
    if input.dtype is not values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    backend = same_backend("heaviside", input, values)
    xp = backend.xp
    a, v = input._data, values._data
    shape = broadcast_shapes("heaviside", a.shape, v.shape)
    step = xp.astype(a > 0, a.dtype)
    data = xp.where(a == 0, xp.broadcast_to(v, shape), step)
    return HEAVISIDE.record(data, backend, (input, values))


# -- lerp, addcmul, addcdiv -------------------------------------------------------------------

def _three(name: str, *values: Any) -> tuple[Any, list[Any], _dt.dtype]:
    """The backend, native arrays (numbers stay numbers) and promoted dtype of three
    operands, after the device and broadcast checks."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    backend = same_backend(name, *tensors)
    broadcast_shapes(name, *(t._data.shape for t in tensors))
    d = _dt.result_type(*values)
    datas = [cast_data(v, d) if isinstance(v, Tensor) else v for v in values]
    return backend, datas, d


# linear in self and end (conjugated coefficients for complex ones), and in weight
LERP = defop("LerpBackward0", jvp=ELEMENTWISE, inputs=("self", "end"), params=("weight",),
             complex=True,
             vjp=(lambda g, n: g * conj_of(1 - n.weight), lambda g, n: g * conj_of(n.weight)))
LERP_TENSOR = defop("LerpBackward1", jvp=ELEMENTWISE, inputs=("self", "end", "weight"),
                    saves=("self", "end", "weight"), complex=True,
                    vjp=(lambda g, n: g * conj_of(1 - n.weight), lambda g, n: g * conj_of(n.weight),
                         lambda g, n: g * conj_of(n.end - n.self)))


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)`` (computed from the nearer end, as PyTorch, so
    ``weight == 1`` gives ``end`` exactly)."""
    _tensors("lerp", input, end)
    if end.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {input.dtype} for `end` but got dtype {end.dtype}")
    if isinstance(weight, Tensor) and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected dtype {input.dtype} for `weight` but got dtype "
                           f"{weight.dtype}")
    check_kernel_dtype("lerp", input)
    backend, (a, e, w), d = _three("lerp", input, end, weight)
    xp = backend.xp

    def formula(a: Any, e: Any, w: Any) -> Any:
        diff = e - a
        near = a + w * diff
        far = e - diff * (1 - w)
        return xp.where(xp.abs(_array(xp, w, diff)) < 0.5, near, far)

    data = in_opmath(backend, formula, a, e, w)
    if isinstance(weight, Tensor):
        return LERP_TENSOR.record(data, backend, (input, end, weight))
    return LERP.record(data, backend, (input, end), weight=weight)


ADDCMUL = defop("AddcmulBackward0", jvp=ELEMENTWISE, inputs=("self", "tensor1", "tensor2"),
                saves=("tensor1", "tensor2"), params=("value",),
                uses=((), ("tensor2",), ("tensor1",)), complex=True,
                vjp=(identity, lambda g, n: g * conj_of(n.tensor2) * conj_of(n.value),
                     lambda g, n: g * conj_of(n.tensor1) * conj_of(n.value)))


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``."""
    for t in (input, tensor1, tensor2):
        _tensors("addcmul", t, t)
    backend, (a, t1, t2), d = _three("addcmul", input, tensor1, tensor2)
    data = in_opmath(backend, lambda a, t1, t2: a + value * (t1 * t2) if value != 1 else
                     a + t1 * t2, a, t1, t2)
    return ADDCMUL.record(data, backend, (input, tensor1, tensor2), value=value)


ADDCDIV = defop("AddcdivBackward0", jvp=ELEMENTWISE, inputs=("self", "tensor1", "tensor2"),
                saves=("tensor1", "tensor2"), params=("value",),
                uses=((), ("tensor2",), ("tensor1", "tensor2")), complex=True,
                vjp=(identity, lambda g, n: g * conj_of(n.value) / conj_of(n.tensor2),
                     lambda g, n: -g * conj_of(n.value) * conj_of(n.tensor1)
                     / conj_of(n.tensor2 * n.tensor2)))


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2`` (integer ``tensor1``/``tensor2`` raise, as in
    PyTorch)."""
    for t in (input, tensor1, tensor2):
        _tensors("addcdiv", t, t)
    if not any(t.dtype.is_floating_point or t.dtype.is_complex for t in (tensor1, tensor2)):
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))"
            ".to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
            "for float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    backend, (a, t1, t2), d = _three("addcdiv", input, tensor1, tensor2)
    data = in_opmath(backend, lambda a, t1, t2: a + value * (t1 / t2), a, t1, t2)
    return ADDCDIV.record(data, backend, (input, tensor1, tensor2), value=value)


# -- clamp_min, clamp_max ---------------------------------------------------------------------

def clamp_min(input: Tensor, min: Any) -> Any:  # noqa: A002 - PyTorch's name
    """``clamp(input, min=min)``."""
    return ew.clamp(input, min=min)


def clamp_max(input: Tensor, max: Any) -> Any:  # noqa: A002 - PyTorch's name
    """``clamp(input, max=max)``."""
    return ew.clamp(input, max=max)


# -- isclose, allclose, equal -----------------------------------------------------------------

def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """Where ``|input - other| <= atol + rtol * |other|`` (or equal, infinities included)."""
    _tensors("isclose", input, other)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_dt.scalar_type_name(input.dtype)} did not match "
                           f"{_dt.scalar_type_name(other.dtype)}")
    if rtol < 0 or atol < 0:
        raise RuntimeError(f"isclose: rtol and atol must be non-negative, got rtol={rtol} "
                           f"and atol={atol}")
    backend = same_backend("isclose", input, other)
    xp = backend.xp
    a, b = input._data, other._data
    broadcast_shapes("isclose", a.shape, b.shape)
    close = a == b
    if input.dtype.is_floating_point or input.dtype.is_complex:  # |a - b|: a complex modulus
        if equal_nan:
            close = close | (xp.isnan(a) & xp.isnan(b))
        finite = xp.isfinite(a) & xp.isfinite(b)
        # the non-finite entries zeroed before subtracting (inf - inf warns)
        zero = xp.zeros_like(a)
        diff = xp.abs(xp.where(finite, a, zero) - xp.where(finite, b, zero))
        close = close | (finite & (diff <= atol + rtol * xp.abs(b)))
    elif input.dtype is not _dt.bool:
        f = backend.native_dtype(_dt.get_default_dtype())
        af, bf = xp.astype(a, f), xp.astype(b, f)
        close = close | (xp.abs(af - bf) <= atol + rtol * xp.abs(bf))
    return Tensor._wrap(close, backend)


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether ``isclose`` holds everywhere (a Python bool)."""
    close = isclose(input, other, rtol, atol, equal_nan)
    return bool(close._backend.xp.all(close._data))


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether both tensors have the same shape and the same values (a Python bool)."""
    _tensors("equal", input, other)
    require_values("equal", input)
    if tuple(input.shape) != tuple(other.shape):
        return False
    backend, ad, bd, ta, tb = _operands("equal", input, other)
    return bool(backend.xp.all(ad == bd))



FUNCTIONS: dict[str, Callable[..., Any]] = {
    "atan2": atan2, "arctan2": atan2, "hypot": hypot, "copysign": copysign, "fmod": fmod,
    "logaddexp": logaddexp, "logaddexp2": logaddexp2, "fmax": fmax, "fmin": fmin,
    "float_power": float_power, "heaviside": heaviside, "lerp": lerp, "addcmul": addcmul,
    "addcdiv": addcdiv, "clamp_min": clamp_min, "clamp_max": clamp_max,
    "isclose": isclose, "allclose": allclose, "equal": equal,
}
"""Exported as ``arraygrad.<name>``."""

METHODS: dict[str, Callable[..., Any]] = dict(FUNCTIONS)
"""Bound as ``Tensor.<name>`` (PyTorch has every one of them as a method)."""

INPLACE: dict[str, Callable[..., Any]] = {
    name + "_": FUNCTIONS[name] for name in (
        "atan2", "arctan2", "hypot", "copysign", "fmod", "heaviside", "lerp",
        "addcmul", "addcdiv", "clamp_min", "clamp_max")}
INPLACE["float_power_"] = _float_power_inplace
"""Bound as in-place ``Tensor.<name>_``."""
