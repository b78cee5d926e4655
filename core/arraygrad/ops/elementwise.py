"""Elementwise ops: arithmetic, unary math, comparisons, ``where``, ``clamp``.

Each differentiable op is its forward on native arrays plus one rule (``ops.rule``):
PyTorch's node name, what the backward saves, and one vector-Jacobian product per
input in Tensor operations (recorded under ``create_graph=True``). Broadcast undoing and
the cast back to an input's dtype are the recorder's, not the rules'. Type promotion is
in ``ops.promotion``, casts in ``ops.casting``, shortcuts in ``ops.fast``.
"""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.arguments import tensor_arg
from arraygrad import dtypes as _dt
from arraygrad.ops import activation_backward as _act_bw, elementwise_first_order as _first
from arraygrad.ops import fast as _fast
from arraygrad.ops.broadcast import broadcast_shapes as broadcast_shapes, mul_sum_to
from arraygrad.ops.deprecated_forms import alpha_first
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.conjugate import conj_of
# re-exported (the ``as`` form, which type checkers take as one): ops import casts from here
from arraygrad.ops.casting import (  # noqa: F401
    cast_data as cast_data, computed_in_float32 as computed_in_float32,
    full_like_scalar as full_like_scalar, in_opmath as in_opmath, opmath_apply as opmath_apply,
    to_dtype as to_dtype, to_float_data as to_float_data, to_native as to_native,
    unary_float_data as unary_float_data,
)
from arraygrad.ops.promotion import operands as _operands, same_backend, scalar_in_opmath
from arraygrad.ops.rule import ELEMENTWISE, defop, identity
from arraygrad.ops.value_checks import any_true
from arraygrad.backends.scalar_operands import scalar_operand
from arraygrad.tensor import Tensor
from arraygrad.tensor_sparse import SparseTensor, sparse_ops

if TYPE_CHECKING:
    from arraygrad.ops.rule import Rule, RuleNode, Vjp
    from arraygrad.autograd.graph import Node
    from arraygrad.backends.contract import Backend


# -- arithmetic ------------------------------------------------------------------

def _alpha_times(g: Tensor, n: RuleNode) -> Tensor:
    """The gradient of ``alpha * other``: ``g`` itself for the default alpha (read from the
    node's args, not its property: every ``y + x`` backward runs this)."""
    alpha = n.args.get("alpha", 1)
    return g if alpha == 1 else g * conj_of(alpha)


ADD = defop("AddBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), params={"alpha": 1},
            complex=True, vjp=(identity, _alpha_times), first_order=(None, _first.unscaled))


def add(input: Tensor, other: Any, *deprecated: Any, alpha: Any = 1) -> Any:
    """``input + alpha * other`` with broadcasting and type promotion (PyTorch's deprecated
    ``add(input, Number alpha, Tensor other)`` too, with its warning)."""
    if deprecated:
        input, other, alpha = alpha_first("add", input, other, deprecated, alpha)
    if input.__class__ is SparseTensor or other.__class__ is SparseTensor:
        return sparse_ops.add(input, other, alpha)
    if alpha == 1:
        out = _fast.binary(input, other, _ADD)
        if out is not None:
            return out
    backend, ad, bd, ta, tb = _operands("add", input, other)
    if alpha == 1:
        return ADD.record(ad + bd, backend, (ta, tb))
    return ADD.record(in_opmath(backend, lambda a, b: a + b * alpha, ad, bd), backend, (ta, tb),
                      alpha=alpha)


SUB = defop("SubBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), params={"alpha": 1},
            complex=True,
            vjp=(identity,
                 lambda g, n: -g if n.alpha == 1 else g * conj_of(-n.alpha)),
            first_order=(None, _first.negated))


def sub(input: Tensor, other: Any, *deprecated: Any, alpha: Any = 1) -> Any:
    """``input - alpha * other`` (PyTorch's deprecated ``sub(input, Number alpha, Tensor
    other)`` too, with its warning)."""
    if deprecated:
        input, other, alpha = alpha_first("sub", input, other, deprecated, alpha)
    if input.__class__ is SparseTensor or other.__class__ is SparseTensor:
        return sparse_ops.sub(input, other, alpha)
    if alpha == 1:
        out = _fast.binary(input, other, _SUB)
        if out is not None:
            return out
    backend, ad, bd, ta, tb = _operands("sub", input, other)
    dtype = (ad if ta is not None else bd).dtype
    if dtype not in backend.floating_natives and dtype == backend.native_dtype(_dt.bool):
        raise RuntimeError("sub: Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    if alpha == 1:
        return SUB.record(ad - bd, backend, (ta, tb))
    return SUB.record(in_opmath(backend, lambda a, b: a - b * alpha, ad, bd), backend, (ta, tb),
                      alpha=alpha)


def _product_grad(g: Tensor, other: Any, node: RuleNode, i: int) -> Tensor:
    """The gradient of factor ``i`` of a product: ``g * conj(other)``, as a contraction when
    broadcasting made the product larger than the factor (``mul_sum_to``)."""
    other = conj_of(other)
    shape = node.input_shape(i)
    if shape is not None and shape != g._data.shape and isinstance(other, Tensor):
        return mul_sum_to(g, other, shape)
    return g * other


MUL = defop("MulBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
            uses=(("other",), ("self",)), complex=True,  # each factor's gradient needs the other
            vjp=(lambda g, n: _product_grad(g, n.other, n, 0),
                 lambda g, n: _product_grad(g, n.self, n, 1)),
            first_order=(_first.times_operand(1), _first.times_operand(0)))


def mul(input: Tensor, other: Any) -> Any:
    """Elementwise product (sparse when an operand is sparse, as in PyTorch)."""
    if input.__class__ is SparseTensor or other.__class__ is SparseTensor:
        return sparse_ops.mul(input, other)
    out = _fast.binary(input, other, _MUL)
    if out is not None:
        return out
    backend, ad, bd, ta, tb = _operands("mul", input, other)
    if ta is None:  # a number first: PyTorch computes ``other * input``
        data = scalar_in_opmath(backend, operator.mul, bd, ad, other, input)
    else:
        data = scalar_in_opmath(backend, operator.mul, ad, bd, input, other)
    return MUL.record(data, backend, (input, other))


DIV = defop("DivBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
            uses=(("other",), ("self", "other")), complex=True,
            vjp=(lambda g, n: g / conj_of(n.other),
                 # (conjugates taken factor by factor: for real tensors, the real formula's
                 # operations in its order, so its rounding is unchanged)
                 lambda g, n: -g * conj_of(n.self) / conj_of(n.other * n.other)),
            first_order=(_first.quotient_by_other, _first.quotient_by_self))


def div(input: Tensor, other: Any, *, rounding_mode: Any = None) -> Any:
    """True division (``rounding_mode=None``), or ``"floor"`` / ``"trunc"`` rounding."""
    if input.__class__ is SparseTensor or other.__class__ is SparseTensor:
        return sparse_ops.div(input, other, rounding_mode=rounding_mode)
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode == "trunc":
        return _div_trunc(input, other)
    if rounding_mode is not None:
        raise RuntimeError(f"div: expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found {rounding_mode!r}")
    out = _fast.binary(input, other, _DIV)
    if out is not None:
        return out
    backend, ad, bd, ta, tb = _operands("div", input, other, floating=True)
    if ta is None and bd.dtype in backend.reduced_floating_natives:
        # a number over float16/bfloat16: PyTorch's reciprocal (rounded) times the number
        recip = opmath_apply(backend, lambda a: 1.0 / a, bd)
        data = scalar_in_opmath(backend, operator.mul, recip, ad, other, input)
    else:
        data = scalar_in_opmath(backend, operator.truediv, ad, bd, input, other)
    return DIV.record(data, backend, (input, other))


def _zero_grad(g: Tensor, n: RuleNode) -> Tensor:
    return g * 0


DIV_TRUNC = defop("DivBackward2", jvp=ELEMENTWISE, inputs=("self", "other"), key="div/trunc",
                  vjp=(_zero_grad, _zero_grad))


def _div_trunc(input: Any, other: Any) -> Tensor:
    """Division rounded toward zero; integer operands keep their integer dtype (PyTorch)."""
    backend, ad, bd, ta, tb = _operands("div", input, other)
    _no_bool("div_trunc", backend, ad, bd)
    refuse_complex_forward("div_trunc", ta, tb)
    native = (ad if hasattr(ad, "dtype") else bd).dtype
    xp = backend.xp
    if native in backend.floating_natives:
        return DIV_TRUNC.record(xp.trunc(ad / bd), backend, (ta, tb))
    integer_divisor_check(backend, bd)
    q = ad // bd
    # floor and trunc differ where the division is inexact and the signs differ
    fix = ((ad % bd) != 0) & ((ad < 0) != (bd < 0))
    return DIV_TRUNC.record(xp.where(fix, q + 1, q), backend, (ta, tb))


FLOOR_DIVIDE = defop("FloorDivideBackward0", jvp=ELEMENTWISE, inputs=("self", "other"),
                     vjp=(_zero_grad, _zero_grad))


def floor_divide(input: Tensor, other: Any) -> Tensor:
    """Division rounded toward negative infinity (gradient zero, as it is piecewise constant)."""
    backend, ad, bd, ta, tb = _operands("floor_divide", input, other)
    _no_bool("floor_divide", backend, ad, bd)
    refuse_complex_forward("div_floor", ta, tb)
    if (ad if hasattr(ad, "dtype") else bd).dtype not in backend.floating_natives:
        integer_divisor_check(backend, bd)
    return FLOOR_DIVIDE.record(ad // bd, backend, (ta, tb))


def integer_divisor_check(backend: Backend, bd: Any) -> None:
    """PyTorch's ``RuntimeError: ZeroDivisionError`` for an integer division by zero (the
    array library would give 0 with a warning)."""
    if bd == 0 if isinstance(bd, int) else any_true(backend, bd == 0):
        raise RuntimeError("ZeroDivisionError")


def _no_bool(op: str, backend: Backend, ad: Any, bd: Any) -> None:
    native = (ad if hasattr(ad, "dtype") else bd).dtype
    if native == backend.native_dtype(_dt.bool):
        check_kernel_dtype(op, _dt.bool)


REMAINDER = defop("RemainderBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
                  uses=((), ("self", "other")),
                  vjp=(identity, lambda g, n: -g * floor_divide(n.self, n.other)))


def remainder(input: Tensor, other: Any) -> Tensor:
    """Python-style modulus (sign of the divisor), as ``torch.remainder``."""
    backend, ad, bd, ta, tb = _operands("remainder", input, other)
    _no_bool("remainder", backend, ad, bd)
    refuse_complex_forward("remainder", ta, tb)
    if (ad if hasattr(ad, "dtype") else bd).dtype not in backend.floating_natives:
        integer_divisor_check(backend, bd)
    return REMAINDER.record(ad % bd, backend, (input, other))


def _pow_base_grad(g: Tensor, n: RuleNode) -> Tensor:
    a, b = n.self, n.exponent
    if isinstance(b, Tensor):
        return g * conj_of(b) * conj_of(where(b == 0, 0.0, a ** (b - 1)))
    # PyTorch's order, ``g * (b * a**(b-1))``: the rounding of its products (``x ** 3``'s
    # gradient is ``g * (3 * (x * x))``)
    return g * 0 if b == 0 else g * conj_of(a ** (b - 1) * b)


def _pow_exponent_grad(g: Tensor, n: RuleNode) -> Tensor:
    return pow_exponent_grad(g, n.self, n.exponent, n.result)


def pow_exponent_grad(g: Tensor, a: Any, b: Tensor, out: Tensor) -> Tensor:
    """The gradient of ``out = a ** b`` in its exponent ``b``, for a tensor or number base
    (complex: ``g * conj(a**b * log(a))``)."""
    # d(a**b)/db = a**b * log(a); taken as 0 where a == 0 and b >= 0 (its real part, for a
    # complex b), as PyTorch does
    b_real = _real_part(b)
    if isinstance(a, Tensor):
        return where((a == 0) & (b_real >= 0), 0.0, g * conj_of(out) * conj_of(log(a)))
    if isinstance(a, complex) or (isinstance(b, Tensor) and b.dtype.is_complex):
        return g * conj_of(out) * conj_of(_complex_log(a))
    if a > 0:
        return g * out * math.log(a)
    if a == 0:
        return where(b_real >= 0, 0.0, g * out * -math.inf)
    return g * math.nan  # log of a negative base, as PyTorch


def _real_part(t: Any) -> Any:
    """A tensor's real part, outside the graph (for the comparisons, which complex numbers
    refuse); a number or a real tensor itself."""
    if isinstance(t, Tensor) and t._data.dtype in t._backend.complex_natives:
        return Tensor._wrap(t._backend.xp.real(t._data), t._backend)
    return t


def _complex_log(a: Any) -> complex:
    """The principal logarithm of a Python number as a complex number."""
    import cmath

    return cmath.log(a) if a != 0 else complex(-math.inf, 0.0)


POW = defop("PowBackward0", jvp=ELEMENTWISE, inputs=("self", "exponent"), saves=("self", "exponent", "result"),
            uses=(("self", "exponent"), ("self", "exponent", "result")), complex=True,
            vjp=(_pow_base_grad, _pow_exponent_grad))


def pow(input: Tensor, exponent: Any) -> Tensor:  # noqa: A001 - PyTorch's name
    """``input ** exponent`` elementwise."""
    backend, ad, bd, ta, tb = _operands("pow", input, exponent)
    result_dtype = backend.arraygrad_dtype((ad if hasattr(ad, "dtype") else bd).dtype)
    if not (result_dtype.is_floating_point or result_dtype.is_complex):
        negative = bd < 0 if isinstance(bd, int) else any_true(backend, bd < 0)
        if negative:
            raise RuntimeError("pow: Integers to negative integer powers are not allowed.")
    return POW.record(_power(backend, ad, bd), backend, (input, exponent))


# PyTorch's CPU kernel computes these number exponents of a float32/float64 tensor without
# ``pow``: ``x * x * x``, ``1 / (x * x)``, ``1 / sqrt(x)`` (2, 0.5 and -1 NumPy special-cases
# itself, with the same results)
_PRODUCT_EXPONENTS = (3, -2, -0.5)
# integer exponents NumPy computes without ``pow`` (a copy, a square, a reciprocal, ones)
_LIBRARY_EXPONENTS = (0, 1, 2, -1)


def _power(backend: Backend, a: Any, b: Any) -> Any:
    """``a ** b`` on arrays (or one number), with a number exponent of 3, -2 or -0.5 of a
    float32/float64 array computed as PyTorch computes it: its values bit for bit, where the
    library's ``pow`` differs in the last place, and a product instead of a ``pow`` call
    (NumPy: ``x ** 3`` of 2000 float64s 115 us, ``x * x * x`` 1.5 us)."""
    kind = type(b)
    if (kind is int or kind is float) \
            and getattr(a, "dtype", None) in backend.wide_floating_natives:
        if b in _PRODUCT_EXPONENTS:
            if b == 3:
                return a * a * a
            if b == -2:
                return 1 / (a * a)
            return 1 / backend.xp.sqrt(a)
        if b not in _LIBRARY_EXPONENTS and (kind is int or math.isfinite(b) and b == int(b)):
            # an integer power of |a|, its sign put back for an odd one: NumPy's vector
            # ``pow`` serves non-negative bases only and falls back to a scalar loop at the
            # first negative one (``x ** 4`` of 2000 float64s spanning 0: 113 us; of their
            # magnitudes 6 us). pow(-a, n) is +-pow(a, n) exactly (C99), -0.0 and infinities
            # included; the library's two paths differ by at most one ulp (as PyTorch's does)
            xp = backend.xp
            power = xp.abs(a) ** b
            return xp.copysign(power, a) if int(b) % 2 else power
    return a ** b


NEG = defop("NegBackward0", jvp=ELEMENTWISE, vjp=(lambda g, n: -g,), complex=True,
            first_order=(_first.negated,))


def neg(input: Tensor) -> Tensor:
    """``-input``."""
    tensor_arg("neg", input)
    if input._data.dtype == input._backend.native_dtype(_dt.bool):
        raise RuntimeError("neg: Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return NEG.record(-input._data, input._backend, (input,))


negative = neg

_ADD = _fast.BinarySpec(operator.add, ADD, integers=True)
_SUB = _fast.BinarySpec(operator.sub, SUB, integers=True)
_MUL = _fast.BinarySpec(operator.mul, MUL, opmath=True, integers=True)
_DIV = _fast.BinarySpec(operator.truediv, DIV, scalar_first=False, opmath=True)


# -- unary math -------------------------------------------------------------------

def _float_unary(name: str, forward: Callable[[Any, Any], Any] | None, rule: Rule,
                 reduced: Callable[[Any, Any], Any] | None = None) -> Callable[[Tensor], Tensor]:
    """The float unary op ``name``: ``forward(xp, array)``, recorded by ``rule`` (integer
    and bool inputs compute in the default float dtype; float16/bfloat16 in float32, with
    ``reduced`` as the forward there when given: ``casting.unary_float_data``). ``forward``
    None: the namespace's function ``name`` itself, called with no Python frame between."""
    native = name if forward is None else None
    general: Callable[[Any, Any], Any] = (
        forward if forward is not None else lambda xp, a: getattr(xp, name)(a))

    def op(input: Tensor) -> Tensor:
        try:  # (a try costs nothing when nothing is raised: the check only on failure)
            backend = input._backend
        except AttributeError:
            tensor_arg(name, input)  # PyTorch's TypeError for a non-tensor
            raise
        data = input._data
        if data.dtype in backend.wide_floating_natives:  # the common case, inline
            return rule.record(general(backend.xp, data) if native is None else
                               getattr(backend.xp, native)(data), backend, (input,))
        return rule.record(unary_float_data(input, general, reduced), backend, (input,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}``."
    return op


def _unary_rule(node_name: str, saves: str, vjp: Vjp, complex: bool = False,
                first: Callable[[Any, Any, Any], Any] | None = None) -> Rule:
    """The rule of a one-input op whose gradient reads its input (``saves="self"``) or its
    result (``saves="result"``). ``complex``: ``vjp`` holds for complex tensors (it is
    ``g * conj(f'(z))`` of a holomorphic ``f``). ``first``: ``vjp`` on arrays for real
    gradients, ``first(gd, saved_array, xp)``, in the vjp's operations and order."""
    return defop(node_name, jvp=ELEMENTWISE, saves=(saves,), vjp=(vjp,), complex=complex,
                 first_order=None if first is None else (_first.unary(saves, first),))


# holomorphic: g * conj(f'(z)), which is g * f'(x) for a real x
EXP = _unary_rule("ExpBackward0", "result", lambda g, n: g * conj_of(n.result), True,
                  lambda gd, yd, xp: gd * yd)
LOG = _unary_rule("LogBackward0", "self", lambda g, n: g / conj_of(n.self), True,
                  lambda gd, xd, xp: gd / xd)
LOG1P = _unary_rule("Log1pBackward0", "self", lambda g, n: g / conj_of(n.self + 1), True)
EXPM1 = _unary_rule("Expm1Backward0", "result", lambda g, n: g * conj_of(n.result + 1), True)
SQRT = _unary_rule("SqrtBackward0", "result", lambda g, n: g / (2 * conj_of(n.result)), True,
                   lambda gd, yd, xp: gd / (yd * 2))
RSQRT = _unary_rule("RsqrtBackward0", "result",
                    lambda g, n: -0.5 * g * conj_of(n.result ** 3), True,
                    lambda gd, yd, xp: gd * -0.5 * (yd * yd * yd))  # (``**3`` is ``y*y*y``)
SIN = _unary_rule("SinBackward0", "self", lambda g, n: g * conj_of(cos(n.self)), True,
                  lambda gd, xd, xp: gd * xp.cos(xd))
COS = _unary_rule("CosBackward0", "self", lambda g, n: -g * conj_of(sin(n.self)), True,
                  lambda gd, xd, xp: -gd * xp.sin(xd))
TAN = _unary_rule("TanBackward0", "result",
                  lambda g, n: g * conj_of(1 + n.result * n.result), True)
RECIPROCAL = _unary_rule("ReciprocalBackward0", "result",
                         lambda g, n: -g * conj_of(n.result) * conj_of(n.result), True)
TANH = defop("TanhBackward0", jvp=ELEMENTWISE, saves=("result",), complex=True,
             vjp=(lambda g, n: _act_bw.tanh_backward(g, n.result),),
             first_order=(_act_bw.tanh_first_order,))
SIGMOID = defop("SigmoidBackward0", jvp=ELEMENTWISE, saves=("result",), complex=True,
                vjp=(lambda g, n: _act_bw.sigmoid_backward(g, n.result),),
                first_order=(_act_bw.sigmoid_first_order,))

exp = _float_unary("exp", None, EXP)
log = _float_unary("log", None, LOG)
log1p = _float_unary("log1p", None, LOG1P)
expm1 = _float_unary("expm1", None, EXPM1)
sqrt = _float_unary("sqrt", None, SQRT)
rsqrt = _float_unary("rsqrt", lambda xp, a: 1 / xp.sqrt(a), RSQRT)
sin: Callable[[Tensor], Tensor] = _float_unary("sin", None, SIN)
cos: Callable[[Tensor], Tensor] = _float_unary("cos", None, COS)
tan = _float_unary("tan", None, TAN)
tanh = _float_unary("tanh", None, TANH)
# tanh form: no overflow for large |x|
# float16/bfloat16: PyTorch's kernel formula in float32 (the tanh form rounds otherwise)
sigmoid = _float_unary("sigmoid", lambda xp, a: 0.5 * xp.tanh(0.5 * a) + 0.5, SIGMOID,
                       reduced=lambda xp, a: _sigmoid_exp(xp, a))


def _sigmoid_exp(xp: Any, a: Any) -> Any:
    """``1 / (1 + exp(-a))`` (float32 ``a``), 0 where ``exp(-a)`` overflows float32, as
    PyTorch's kernel gives, without the library's overflow warning."""
    e = xp.exp(xp.minimum(-a, xp.asarray(88.7, dtype=a.dtype)))
    return xp.where(-a > 88.7, xp.zeros_like(a), 1.0 / (1.0 + e))
reciprocal = _float_unary("reciprocal", lambda xp, a: 1 / a, RECIPROCAL)

def _abs_grad(g: Tensor, n: RuleNode) -> Tensor:
    """``g * sign(x)``; for a complex ``z``, ``g * sgn(z)`` (``z / |z|``, 0 at 0: the real
    gradient of ``|z|`` in PyTorch's convention)."""
    x = n.self
    return g * (sgn(x) if x._data.dtype in x._backend.complex_natives else sign(x))


ABS = _unary_rule("AbsBackward0", "self", _abs_grad, True)


def abs(input: Tensor) -> Tensor:  # noqa: A001
    """Elementwise absolute value (gradient ``sign(x)``, 0 at 0)."""
    check_kernel_dtype("abs", input)
    tensor_arg("abs", input)
    return ABS.record(input._backend.xp.abs(input._data), input._backend, (input,))


absolute = abs


def _rounding(name: str, node_name: str, doc: str) -> Callable[[Tensor], Tensor]:
    """A piecewise-constant op (gradient 0) computed by ``xp.<name>``."""
    rule = defop(node_name, jvp=ELEMENTWISE, vjp=(_zero_grad,))
    refusal = (None if name == "round" else f"{name} is not supported for complex inputs")

    def op(input: Tensor) -> Tensor:
        try:  # (as the float unary ops')
            backend = input._backend
        except AttributeError:
            tensor_arg(name, input)
            raise
        if input._data.dtype not in backend.floating_natives:
            check_kernel_dtype(name, input)
        if input._data.dtype in backend.complex_natives:
            refuse_complex_forward("round_vml", input, message=refusal)
        return rule.record(getattr(backend.xp, name)(input._data), backend, (input,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


SIGN = defop("SignBackward0", jvp=ELEMENTWISE, vjp=(_zero_grad,))


def sign(input: Tensor) -> Tensor:
    """-1, 0 or 1 by the sign of each element; 0 for NaN, as PyTorch (gradient 0). Complex
    tensors are refused, as PyTorch does: ``sgn`` is theirs."""
    tensor_arg("sign", input)
    refuse_complex_forward("sign", input, message=(
        "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use "
        "torch.sgn instead."))
    backend = input._backend
    xp = backend.xp
    data = input._data
    out = _sign_data(backend, data)
    return SIGN.record(out, backend, (input,))


def _sign_data(backend: Backend, data: Any) -> Any:
    """The sign of a real array, 0 for NaN; a bool array's own values (NumPy has no bool
    sign, PyTorch gives the input back)."""
    xp = backend.xp
    if data.dtype == backend.native_dtype(_dt.bool):
        return xp.asarray(data, copy=True)
    out = xp.sign(data)
    if data.dtype in backend.floating_natives:
        out = xp.where(xp.isnan(data), xp.zeros_like(data), out)
    return out


def _sgn_grad(g: Tensor, n: RuleNode) -> Tensor:
    """0 for a real input (piecewise constant); for a complex ``z`` with ``s = z / |z|``,
    PyTorch's ``(g - conj(g) * s**2) / (2 |z|)``, 0 where ``z`` is 0."""
    z = n.self
    if z._data.dtype not in z._backend.complex_natives:
        return g * 0
    from arraygrad.ops.conjugate import conj

    a = abs(z)
    s = n.result
    return where(a == 0, 0.0, (g - conj(g) * s * s) / (2 * a))


SGN = defop("SgnBackward0", jvp=ELEMENTWISE, saves=("self", "result"), vjp=(_sgn_grad,),
            complex=True)


def sgn(input: Tensor) -> Tensor:
    """``sign`` for real tensors, NaN giving 0; ``z / |z|`` for complex ones (0 at 0), as
    ``torch.sgn``. Gradient 0 for real tensors."""
    backend = input._backend
    data = input._data
    xp = backend.xp
    if data.dtype in backend.complex_natives:
        a = xp.astype(xp.abs(data), data.dtype)
        out = xp.where(a == 0, xp.zeros_like(data), data / xp.where(a == 0, xp.ones_like(a), a))
    else:
        out = _sign_data(backend, data)
    return SGN.record(out, backend, (input,))


floor = _rounding("floor", "FloorBackward0", "Round down (gradient 0).")
ceil = _rounding("ceil", "CeilBackward0", "Round up (gradient 0).")
_round = _rounding("round", "RoundBackward0", "Round half to even (gradient 0).")
trunc = _rounding("trunc", "TruncBackward0", "Round toward zero (gradient 0).")
ROUND_DECIMALS = defop("RoundBackward1", jvp=ELEMENTWISE, params=("decimals",), vjp=(_zero_grad,))


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001 - PyTorch's name
    """Round half to even; with ``decimals``, to that many decimal places (negative: to tens,
    hundreds...), computed as PyTorch does: ``round(x * 10**d) / 10**d`` (gradient 0)."""
    if decimals == 0:
        return _round(input)
    refuse_complex_forward("round_vml", input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'round: "round_cpu" not implemented for \'{input.dtype}\'')
    xp = input._backend.xp
    data = input._data
    if decimals > 0:
        scale = 10.0 ** decimals
        out = in_opmath(input._backend, lambda a: xp.round(a * scale) / scale, data)
    else:
        scale = 10.0 ** -decimals
        out = in_opmath(input._backend, lambda a: xp.round(a / scale) * scale, data)
    return ROUND_DECIMALS.record(out, input._backend, (input,), decimals=decimals)

RELU = defop("ReluBackward0", jvp=ELEMENTWISE, saves=("result",),
             vjp=(lambda g, n: _act_bw.threshold_backward(g, n.result),),
             first_order=(_act_bw.relu_first_order,))


def relu(input: Tensor) -> Tensor:
    """``max(input, 0)``; gradient 1 where the output is positive."""
    # the argument checks only where they can speak: one type and one dtype test
    if not isinstance(input, Tensor) or input._data.dtype not in input._backend.floating_natives:
        check_kernel_dtype("relu", input)
        tensor_arg("relu", input)
    backend = input._backend
    data = input._data
    if data.dtype in backend.complex_natives:
        refuse_complex_forward("clamp", input, message="clamp is not supported for complex types")
    # one pass, and NaN stays NaN as in PyTorch
    zero = _zero_like(backend, data.dtype)
    dtype = data.dtype
    if dtype in backend.wide_floating_natives:
        # a clip to [0, inf]: -0.0 stays -0.0 as in PyTorch's relu (``maximum`` gives +0.0),
        # and NumPy's clip loop is twice as fast as its maximum (a (128, 512) float32: 20 us
        # against 38); float16/bfloat16 keep ``maximum`` (NumPy clips bfloat16 in float32)
        out = backend.xp.clip(data, zero, scalar_operand(backend, math.inf, dtype))
    else:
        out = backend.xp.maximum(data, zero)
    return RELU.record(out, backend, (input,))


def _zero_like(backend: Backend, native: Any) -> Any:
    """A 0-d zero of ``native`` dtype (the backend's cached operand when it has them)."""
    cache = backend.scalar_operands
    return backend.xp.zeros((), dtype=native) if cache is None else cache.zero(native)


def _clamp_grad(g: Tensor, n: RuleNode) -> Tensor:
    """PyTorch's ``clamp_backward``: ``g`` where ``min <= x <= max``, zero elsewhere (a
    ``where``, not a product: an infinite or NaN ``g`` outside the range gives zero)."""
    x = n.self
    mask: Any = None
    if n.min is not None:
        mask = x >= n.min
    if n.max is not None:
        mask = (x <= n.max) if mask is None else mask & (x <= n.max)
    return where(mask, g, 0.0)


def _clamp_first_order(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``_clamp_grad`` on arrays (plain backward): ``gd`` where the input was inside
    ``[min, max]`` (ends included), zero elsewhere, in one ``where``."""
    x = n.saved_data("self")
    low, high = n.min, n.max
    if low.__class__ not in _NUMBERS or high.__class__ not in _NUMBERS:
        return None  # a live scalar of a compiled step: the recorded formula
    xp = backend.xp
    inside = None
    if low is not None:
        inside = x >= scalar_operand(backend, low, x.dtype)
    if high is not None:
        below = x <= scalar_operand(backend, high, x.dtype)
        inside = below if inside is None else xp.logical_and(inside, below)
    return xp.where(inside, gd, _zero_like(backend, gd.dtype))


CLAMP = defop("ClampBackward1", jvp=ELEMENTWISE, saves=("self",), params=("min", "max"),
              vjp=(_clamp_grad,), first_order=(_clamp_first_order,))
_NUMBERS = frozenset((float, int, type(None)))  # bounds read as plain numbers on arrays


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Any:  # noqa: A002
    """Limit values to ``[min, max]``; gradient 1 inside the range (ends included)."""
    tensor_arg("clamp", input)
    if min is None and max is None:
        raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
    refuse_complex_forward("clamp", input, min, max,
                           message="clamp is not supported for complex types")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min if isinstance(min, Tensor) else full_like_scalar(input, min))
        if max is not None:
            out = minimum(out, max if isinstance(max, Tensor) else full_like_scalar(input, max))
        return out
    if not (_fast.fast_paths.on and min.__class__ in _NUMBERS and max.__class__ in _NUMBERS
            and input.dtype.is_floating_point):  # else a Python number keeps the dtype
        d = _dt.result_type(input, *(v for v in (min, max) if v is not None))
        if d is not input.dtype:  # a float bound on an integer tensor gives a float result
            input = to_dtype(input, d)
    backend = input._backend
    return CLAMP.record(clamp_data(backend, input._data, min, max), backend, (input,),
                        min=min, max=max)


def _zero_kept(low: Any, high: Any) -> bool:
    """Whether clamp keeps a zero input's own sign where NumPy's clip gives a zero bound's:
    a zero bound with zero inside ``[low, high]`` (PyTorch compares strictly, so
    ``clamp(0.0, max=-0.0)`` is 0.0). Python numbers only: a compiled step's live scalar is
    not compared (that would be a guard on its value)."""
    for bound in (low, high):
        if bound is not None and bound.__class__ is not float and bound.__class__ is not int:
            return False
    return (low == 0 or high == 0) and (low is None or low <= 0) and \
        (high is None or high >= 0)


def clamp_data(backend: Backend, data: Any, low: Any, high: Any) -> Any:
    """``data`` limited to ``[low, high]`` (either may be None) as PyTorch's clamp: ``low`` where
    ``data < low``, then ``high`` where above it (so ``high`` wins when ``low > high``), NaN
    kept, ``-0.0`` kept at a zero bound. A float32/float64 array goes through the namespace's
    ``clip`` with a missing bound as an infinity: NumPy's two-bound clip is one branch-free
    pass with those results (a ``where`` on a random mask is ~25x slower), its one-bound form
    turns ``-0.0`` into ``0.0``; at a zero bound a second pass puts back the input's zeros."""
    xp = backend.xp
    clip = getattr(xp, "clip", None)
    if clip is not None and data.dtype in backend.wide_floating_natives:
        out = clip(data, _bound(backend, -math.inf if low is None else low, data.dtype),
                   _bound(backend, math.inf if high is None else high, data.dtype))
        if _zero_kept(low, high):  # only zeros differ: they are put back
            out = xp.where(data == 0, data, out)
        return out
    if low is not None:
        data = xp.where(data < low, xp.asarray(low, dtype=data.dtype), data)
    if high is not None:
        data = xp.where(data > high, xp.asarray(high, dtype=data.dtype), data)
    return data


def _bound(backend: Backend, value: Any, native: Any) -> Any:
    """A clamp bound as a 0-d array of ``native``: the backend's cached operand for a Python
    number (a compiled step's live scalar is converted afresh, never a cache key)."""
    if value.__class__ is float or value.__class__ is int:
        cached = scalar_operand(backend, value, native)
        if cached is not value:
            return cached
    return backend.xp.asarray(value, dtype=native)


clip = clamp


def _share(g: Tensor, a: Tensor, b: Tensor, loses: Any) -> Tensor:
    """The part of ``g`` that goes to ``a`` in a max/min with ``b``: none where ``a`` lost
    (``loses``), half on ties, all otherwise (NaN included), as PyTorch's formula gives."""
    native = g._data.dtype
    return g * (1 - to_native(loses, native) - to_native(a == b, native) * 0.5)


def _maxmin_rule(node_name: str, beats: Any) -> Any:
    return defop(node_name, jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"), vjp=(
        lambda g, n: _share(g, n.self, n.other, beats(n.other, n.self)),
        lambda g, n: _share(g, n.other, n.self, beats(n.self, n.other))))


MAXIMUM = _maxmin_rule("MaximumBackward0", lambda a, b: a > b)
MINIMUM = _maxmin_rule("MinimumBackward0", lambda a, b: a < b)


def maximum(input: Tensor, other: Any) -> Tensor:
    """Elementwise maximum (ties split the gradient equally, as PyTorch)."""
    refuse_complex_forward("maximum", input, other, error=RuntimeError,
                           message="maximum not implemented for complex tensors.")
    backend, ad, bd, ta, tb = _operands("maximum", input, other)
    return MAXIMUM.record(backend.xp.maximum(ad, bd), backend, (input, other))


def minimum(input: Tensor, other: Any) -> Tensor:
    """Elementwise minimum (ties split the gradient equally, as PyTorch)."""
    refuse_complex_forward("minimum", input, other, error=RuntimeError,
                           message="minimum not implemented for complex tensors.")
    backend, ad, bd, ta, tb = _operands("minimum", input, other)
    return MINIMUM.record(backend.xp.minimum(ad, bd), backend, (input, other))


WHERE = defop("WhereBackward0", jvp=ELEMENTWISE, inputs=("condition", "self", "other"), saves=("condition",),
              complex=True,
              # zeros where not chosen, not ``g * 0``: an inf or NaN gradient must not reach the
              # branch that was not taken (PyTorch's masked_fill)
              vjp=(None,
                   lambda g, n: where(n.condition, g, 0.0),
                   lambda g, n: where(n.condition, 0.0, g)))


_NOT_GIVEN: Any = object()


def where(condition: Tensor, input: Any = _NOT_GIVEN, other: Any = _NOT_GIVEN) -> Any:
    """Elements of ``input`` where ``condition`` holds, else of ``other``; with the condition
    alone, ``nonzero(condition, as_tuple=True)`` (the indices where it holds)."""
    if not isinstance(condition, Tensor):
        raise TypeError("where: condition must be a bool Tensor")
    if input is _NOT_GIVEN and other is _NOT_GIVEN:
        from arraygrad.ops.families.searching import nonzero

        return nonzero(condition, as_tuple=True)
    if input is _NOT_GIVEN or other is _NOT_GIVEN:
        raise TypeError("where() takes 1 or 3 arguments (condition, input, other)")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        # two scalars: their promoted dtype (where(c, 1.0, 0.0) is float32, as in PyTorch)
        d = _dt.result_type(input, other)
        cb = condition._backend
        input = Tensor._wrap(cb.xp.asarray(input, dtype=cb.native_dtype(d)), cb)
    backend, ad, bd, ta, tb = _operands("where", input, other)
    cd = condition._data
    if cd.dtype != backend.native_dtype(_dt.bool):
        raise RuntimeError(f"where: expected condition to be a bool tensor, got {condition.dtype}")
    if condition._backend is not backend:
        backend = same_backend("where", condition, *[t for t in (ta, tb) if t is not None])
    xp = backend.xp
    if not hasattr(ad, "shape"):
        ad = xp.asarray(ad, dtype=bd.dtype)
    if not hasattr(bd, "shape"):
        bd = xp.asarray(bd, dtype=ad.dtype)
    broadcast_shapes("where", cd.shape, ad.shape, bd.shape)
    return WHERE.record(xp.where(cd, ad, bd), backend, (condition, ta, tb))


# -- comparisons and logic (never differentiable) ---------------------------------------

def _compare(name: str, fwd: Callable[..., Any], ordering: bool = False) -> Any:
    def op(input: Tensor, other: Any) -> Tensor:
        if input.__class__ is not Tensor and not isinstance(input, Tensor):
            raise TypeError(  # PyTorch's words: a number compares only as ``other``
                f"{name}() received an invalid combination of arguments - got "
                f"({type(input).__name__}, {type(other).__name__}), but expected one of: "
                "(Tensor input, Tensor other) or (Tensor input, Number other)")
        backend, ad, bd, ta, tb = _operands(name, input, other)
        if ordering:  # complex numbers have no order (PyTorch refuses them)
            native = (ad if hasattr(ad, "dtype") else bd).dtype
            if native in backend.complex_natives:
                refuse_complex_forward(name, Tensor._wrap(ad if hasattr(ad, "dtype") else bd,
                                                          backend))
        return Tensor._wrap(fwd(ad, bd), backend)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` as a bool tensor (not differentiable)."
    return op


eq = _compare("eq", lambda a, b: a == b)
ne = _compare("ne", lambda a, b: a != b)
lt = _compare("lt", lambda a, b: a < b, True)
le = _compare("le", lambda a, b: a <= b, True)
gt = _compare("gt", lambda a, b: a > b, True)
ge = _compare("ge", lambda a, b: a >= b, True)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _logical(name: str, fwd_name: str) -> Any:
    def op(input: Tensor, other: Any) -> Tensor:
        backend, ad, bd, ta, tb = _operands(name, input, other)
        xp = backend.xp
        b = backend.native_dtype(_dt.bool)
        ad = xp.astype(ad, b) if hasattr(ad, "dtype") else bool(ad)
        bd = xp.astype(bd, b) if hasattr(bd, "dtype") else bool(bd)
        return Tensor._wrap(getattr(xp, fwd_name)(ad, bd), backend)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` as a bool tensor."
    return op


logical_and = _logical("logical_and", "logical_and")
logical_or = _logical("logical_or", "logical_or")
logical_xor = _logical("logical_xor", "logical_xor")


def logical_not(input: Tensor) -> Tensor:
    """Elementwise ``not`` as a bool tensor."""
    tensor_arg("logical_not", input)
    xp = input._backend.xp
    data = input._data
    if data.dtype != input._backend.native_dtype(_dt.bool):
        data = data != 0
    return Tensor._wrap(xp.logical_not(data), input._backend)


def _bitwise(name: str, fwd: Callable[..., Any]) -> Any:
    def op(input: Tensor, other: Any) -> Tensor:
        backend, ad, bd, ta, tb = _operands(name, input, other)
        dt = (ta if ta is not None else tb).dtype
        if dt.is_floating_point or dt.is_complex:
            raise NotImplementedError(f'"{name}_cpu" not implemented for {_dt.scalar_type_name(dt)!r}')
        return Tensor._wrap(fwd(ad, bd), backend)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of bool or integer tensors."
    return op


bitwise_and = _bitwise("bitwise_and", lambda a, b: a & b)
bitwise_or = _bitwise("bitwise_or", lambda a, b: a | b)
bitwise_xor = _bitwise("bitwise_xor", lambda a, b: a ^ b)



def bitwise_not(input: Tensor) -> Tensor:
    """``~input``: logical not for bool tensors, bitwise not for integers."""
    tensor_arg("bitwise_not", input)
    if input.dtype.is_floating_point or input.dtype.is_complex:
        raise NotImplementedError(
            f'"bitwise_not_cpu" not implemented for {_dt.scalar_type_name(input.dtype)!r}')
    return Tensor._wrap(~input._data, input._backend)


def isnan(input: Tensor) -> Tensor:
    """Where elements are NaN."""
    tensor_arg("isnan", input)
    return Tensor._wrap(input._backend.xp.isnan(input._data), input._backend)


def isinf(input: Tensor) -> Tensor:
    """Where elements are infinite."""
    tensor_arg("isinf", input)
    return Tensor._wrap(input._backend.xp.isinf(input._data), input._backend)


def isfinite(input: Tensor) -> Tensor:
    """Where elements are finite."""
    tensor_arg("isfinite", input)
    return Tensor._wrap(input._backend.xp.isfinite(input._data), input._backend)
