"""Elementwise ops: arithmetic, unary math, comparisons, ``where``, ``clamp``, casts.

Each op is its forward on native arrays and, beside it, its backward written
in Tensor operations (so ``create_graph=True`` records it).
"""

from __future__ import annotations

import math
from numbers import Number

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.graph import SavedOutput, SavedTensor
from arraygrad.ops._record import (
    OUTPUT, _edge, backward_node, new_node, cast_data, record, record_node, same_backend, to_float_data,
)
from arraygrad.ops import activation_backward as _act_bw, fast_arith as _fast
from arraygrad.ops.broadcast import broadcast_shapes, mul_sum_to, reduce_grad
from arraygrad.tensor import Tensor, wrap

_scalar_types = (int, float, bool)


# -- operand preparation -------------------------------------------------------

def _operands(op: str, a, b, floating: bool = False):
    """Promote ``a``, ``b`` (tensors or Python scalars) to one dtype on one backend.

    Returns ``(backend, a_data, b_data, ta, tb)`` where ``ta``/``tb`` are the
    tensor operands (None for scalars) and the data are native arrays or scalars.
    """
    # fast paths: same-dtype tensors of one shape, and a float tensor with a Python number
    ta = a if isinstance(a, Tensor) else None
    tb = b if isinstance(b, Tensor) else None
    if not floating:
        if ta is not None:
            if tb is not None:
                da, db = ta._data, tb._data
                if (ta._backend is tb._backend and da.shape == db.shape
                        and da.dtype == db.dtype):
                    return ta._backend, da, db, ta, tb
            elif type(b) is float or type(b) is int:
                backend = ta._backend
                da = ta._data
                if da.dtype in backend.floating_natives:
                    return backend, da, b, ta, None
        elif tb is not None and (type(a) is float or type(a) is int):
            backend = tb._backend
            db = tb._data
            if db.dtype in backend.floating_natives:
                return backend, a, db, None, tb
    if ta is not None and tb is not None:
        backend = ta._backend
        if tb._backend is not backend:
            same_backend(op, ta, tb)
        sa, sb = ta._data.shape, tb._data.shape
        if sa != sb:
            broadcast_shapes(op, sa, sb)
    elif ta is None and tb is None:
        raise TypeError(f"{op}: expected at least one Tensor operand")
    else:
        other = b if ta is not None else a
        if not isinstance(other, _scalar_types):
            if isinstance(other, Number):
                other = float(other) if not isinstance(other, int) else int(other)
                if ta is not None:
                    b = other
                else:
                    a = other
            else:
                raise TypeError(
                    f"{op}: unsupported operand type {type(other).__name__} (expected Tensor or number)")
        backend = (ta if ta is not None else tb)._backend
    if (ta is not None and tb is not None and ta._data.dtype == tb._data.dtype
            and not floating):
        return backend, ta._data, tb._data, ta, tb
    d = _dt.result_type(a, b)
    if floating and not d.is_floating_point:
        d = _dt.get_default_dtype()
    ad = cast_data(ta, d) if ta is not None else _scalar_as(a, d)
    bd = cast_data(tb, d) if tb is not None else _scalar_as(b, d)
    return backend, ad, bd, ta, tb


def _scalar_as(value, d):
    """A Python scalar converted to the kind of ``d`` (the standard wants matching kinds)."""
    if d.is_floating_point:
        return float(value)
    if d is _dt.bool:
        return bool(value)
    return int(value)


def _meta(t):
    """What the backward needs of an operand to reduce its gradient; None when it gets none."""
    return None if t is None or not t._requires_grad else (t._data.shape, t._data.dtype)


def _no_graph(ta, tb) -> bool:
    """True when the op's result needs no node (grad mode off, or no operand requires grad)."""
    return not _state.enabled or not (
        (ta is not None and ta._requires_grad) or (tb is not None and tb._requires_grad))


def _grad_for(g, meta):
    return None if meta is None else reduce_grad(g, meta[0], meta[1])


# -- arithmetic ------------------------------------------------------------------

def _add_backward(node, g):
    am, bm, alpha = node.args
    gb = None
    if node._next[1] is not None:
        gb = _grad_for(g if alpha == 1 else g * alpha, bm)
    return (_grad_for(g, am) if node._next[0] is not None else None), gb


AddBackward0 = backward_node("AddBackward0", _add_backward)


def add(input, other, *, alpha=1):
    """``input + alpha * other`` with broadcasting and type promotion."""
    if alpha == 1:
        out = _fast.binary(input, other, _fast.ADD)
        if out is not None:
            return out
    backend, ad, bd, ta, tb = _operands("add", input, other)
    data = ad + bd if alpha == 1 else ad + bd * alpha
    if _no_graph(ta, tb):
        return Tensor._wrap(data, backend)
    return record_node(data, backend, AddBackward0, (ta, tb), args=(_meta(ta), _meta(tb), alpha))


def _sub_backward(node, g):
    am, bm, alpha = node.args
    ga = _grad_for(g, am) if node._next[0] is not None else None
    gb = _grad_for(-g if alpha == 1 else g * (-alpha), bm) if node._next[1] is not None else None
    return ga, gb


SubBackward0 = backward_node("SubBackward0", _sub_backward)


def sub(input, other, *, alpha=1):
    """``input - alpha * other``."""
    if alpha == 1:
        out = _fast.binary(input, other, _fast.SUB)
        if out is not None:
            return out
    backend, ad, bd, ta, tb = _operands("sub", input, other)
    dtype = (ad if ta is not None else bd).dtype
    if dtype not in backend.floating_natives and dtype == backend.native_dtype(_dt.bool):
        raise RuntimeError("sub: Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    data = ad - bd if alpha == 1 else ad - bd * alpha
    if _no_graph(ta, tb):
        return Tensor._wrap(data, backend)
    return record_node(data, backend, SubBackward0, (ta, tb), args=(_meta(ta), _meta(tb), alpha))


def rsub(input, other, *, alpha=1):
    """``other - alpha * input``."""
    return sub(other, input, alpha=alpha)


def _mul_backward(node, g):
    a, b = node.saved_tensors
    am, bm = node.args
    ga = _product_grad(g, b, am) if node._next[0] is not None else None
    gb = _product_grad(g, a, bm) if node._next[1] is not None else None
    return ga, gb


def _product_grad(g, other, meta):
    """``sum_to(g * other)`` for one factor: a contraction when broadcasting made it big."""
    shape, native = meta
    if shape != g._data.shape:
        return reduce_grad(mul_sum_to(g, other, shape), shape, native)
    out = g * other
    return out if out._data.dtype == native else reduce_grad(out, shape, native)


MulBackward0 = backward_node("MulBackward0", _mul_backward)


def mul(input, other):
    """Elementwise product."""
    out = _fast.binary(input, other, _fast.MUL)
    if out is not None:
        return out
    backend, ad, bd, ta, tb = _operands("mul", input, other)
    if _no_graph(ta, tb):
        return Tensor._wrap(ad * bd, backend)
    # the gradient of each operand needs the other one
    need_a = ta is not None and ta._requires_grad
    need_b = tb is not None and tb._requires_grad
    return record_node(ad * bd, backend, MulBackward0, (ta, tb),
                  saved=(input if need_b else None, other if need_a else None),
                  args=(_meta(ta), _meta(tb)))


def _div_backward(node, g):
    a, b = node.saved_tensors
    am, bm = node.args
    ga = _grad_for(g / b, am) if node._next[0] is not None else None
    gb = _grad_for(-g * a / (b * b), bm) if node._next[1] is not None else None
    return ga, gb


DivBackward0 = backward_node("DivBackward0", _div_backward)


def div(input, other, *, rounding_mode=None):
    """True division (``rounding_mode=None``), or ``"floor"`` / ``"trunc"`` rounding."""
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode == "trunc":
        q = div(input, other)
        return q.trunc() if isinstance(q, Tensor) else q
    if rounding_mode is not None:
        raise RuntimeError(f"div: expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found {rounding_mode!r}")
    out = _fast.binary(input, other, _fast.DIV)
    if out is not None:
        return out
    backend, ad, bd, ta, tb = _operands("div", input, other, floating=True)
    if _no_graph(ta, tb):
        return Tensor._wrap(ad / bd, backend)
    need_b = tb is not None and tb._requires_grad
    return record(ad / bd, backend, DivBackward0, (ta, tb),
                  saved=(input if need_b else None, other), args=(_meta(ta), _meta(tb)))


def rdiv(input, other):
    """``other / input``."""
    return div(other, input)


def _floor_divide_backward(node, g):
    am, bm = node.args
    zero = g * 0
    return (_grad_for(zero, am) if node._next[0] is not None else None,
            _grad_for(zero, bm) if node._next[1] is not None else None)


FloorDivideBackward0 = backward_node("FloorDivideBackward0", _floor_divide_backward)


def floor_divide(input, other):
    """Division rounded toward negative infinity (gradient zero, as it is piecewise constant)."""
    backend, ad, bd, ta, tb = _operands("floor_divide", input, other)
    _no_bool("floor_divide", backend, ad, bd)
    return record(ad // bd, backend, FloorDivideBackward0, (ta, tb), args=(_meta(ta), _meta(tb)))


def _no_bool(op: str, backend, ad, bd) -> None:
    native = (ad if hasattr(ad, "dtype") else bd).dtype
    if native == backend.native_dtype(_dt.bool):
        raise RuntimeError(f'{op}: "{op}_cpu" not implemented for \'Bool\'')


def _remainder_backward(node, g):
    a, b = node.saved_tensors
    am, bm = node.args
    ga = _grad_for(g, am) if node._next[0] is not None else None
    gb = _grad_for(-g * floor_divide(a, b), bm) if node._next[1] is not None else None
    return ga, gb


RemainderBackward0 = backward_node("RemainderBackward0", _remainder_backward)


def remainder(input, other):
    """Python-style modulus (sign of the divisor), as ``torch.remainder``."""
    backend, ad, bd, ta, tb = _operands("remainder", input, other)
    _no_bool("remainder", backend, ad, bd)
    need_b = tb is not None and tb._requires_grad
    return record(ad % bd, backend, RemainderBackward0, (ta, tb),
                  saved=(input if need_b else None, other if need_b else None),
                  args=(_meta(ta), _meta(tb)))


def _pow_backward(node, g):
    a, b, out = node.saved_tensors
    am, bm = node.args
    ga = gb = None
    if node._next[0] is not None:
        if isinstance(b, Tensor):
            ga = g * b * where(b == 0, 0.0, a ** (b - 1))
        else:
            ga = g * 0 if b == 0 else g * b * a ** (b - 1)
        ga = _grad_for(ga, am)
    if node._next[1] is not None:
        # d(a**b)/db = a**b * log(a); taken as 0 where a == 0 and b >= 0, as PyTorch does
        if isinstance(a, Tensor):
            gb = where((a == 0) & (b >= 0), 0.0, g * out * log(a))
        elif a > 0:
            gb = g * out * math.log(a)
        elif a == 0:
            gb = where(b >= 0, 0.0, g * out * -math.inf)
        else:
            gb = g * math.nan  # log of a negative base, as PyTorch
        gb = _grad_for(gb, bm)
    return ga, gb


PowBackward0 = backward_node("PowBackward0", _pow_backward)


def pow(input, exponent):  # noqa: A001 - PyTorch's name
    """``input ** exponent`` elementwise."""
    backend, ad, bd, ta, tb = _operands("pow", input, exponent)
    result_dtype = backend.arraygrad_dtype((ad if hasattr(ad, "dtype") else bd).dtype)
    if not result_dtype.is_floating_point:
        negative = bd < 0 if isinstance(bd, int) else bool(backend.xp.any(bd < 0))
        if negative:
            raise RuntimeError("pow: Integers to negative integer powers are not allowed.")
    data = ad ** bd
    out_saved = tb is not None and tb._requires_grad
    return record(data, backend, PowBackward0, (ta, tb),
                  saved=(input, exponent, OUTPUT if out_saved else None),
                  args=(_meta(ta), _meta(tb)))


def rpow(input, other):
    """``other ** input``."""
    return pow(other, input)


def _neg_backward(node, g):
    return -g


NegBackward0 = backward_node("NegBackward0", _neg_backward)


def neg(input):
    """``-input``."""
    if input._data.dtype == input._backend.native_dtype(_dt.bool):
        raise RuntimeError("neg: Negation, the `-` operator, on a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return record(-input._data, input._backend, NegBackward0, (input,))


negative = neg


# -- unary math -------------------------------------------------------------------

def _unary(name: str, fwd, backward, save_input=False, save_output=False):
    """Define a float unary op ``name`` from its native forward and Tensor backward
    (``backward(node, g)``, or a ready node class)."""
    cls = backward if isinstance(backward, type) else backward_node(
        f"{name[0].upper()}{name[1:]}Backward0", backward)

    def op(input):
        backend = input._backend
        data = input._data
        if data.dtype not in backend.floating_natives:
            data = to_float_data(input)
        out = wrap(fwd(backend.xp, data), backend)
        if input._requires_grad and _state.enabled:
            node = new_node(cls, (_edge(input),), out)
            if save_input:
                node._saved = (SavedTensor(input), SavedOutput(out)) if save_output else (
                    SavedTensor(input),)
            else:
                node._saved = (SavedOutput(out),) if save_output else ()
            node.args = None
        return out

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}``."
    return op


def _saved0(node):
    return node.saved_tensors[0]


def _squared(t):
    return t * t  # cheaper than the general pow


exp = _unary("exp", lambda xp, a: xp.exp(a), lambda n, g: g * _saved0(n), save_output=True)
log = _unary("log", lambda xp, a: xp.log(a), lambda n, g: g / _saved0(n), save_input=True)
log1p = _unary("log1p", lambda xp, a: xp.log1p(a), lambda n, g: g / (_saved0(n) + 1),
               save_input=True)
expm1 = _unary("expm1", lambda xp, a: xp.expm1(a), lambda n, g: g * (_saved0(n) + 1),
               save_output=True)
sqrt = _unary("sqrt", lambda xp, a: xp.sqrt(a), lambda n, g: g / (2 * _saved0(n)),
              save_output=True)
rsqrt = _unary("rsqrt", lambda xp, a: 1 / xp.sqrt(a),
               lambda n, g: -0.5 * g * _saved0(n) ** 3, save_output=True)
sin = _unary("sin", lambda xp, a: xp.sin(a), lambda n, g: g * cos(_saved0(n)), save_input=True)
cos = _unary("cos", lambda xp, a: xp.cos(a), lambda n, g: -g * sin(_saved0(n)), save_input=True)
tan = _unary("tan", lambda xp, a: xp.tan(a), lambda n, g: g * (1 + _squared(_saved0(n))),
             save_output=True)
TanhBackward0 = _act_bw.activation_node("TanhBackward0", _act_bw.tanh_grad_data,
                                        _act_bw.tanh_backward)
tanh = _unary("tanh", lambda xp, a: xp.tanh(a), TanhBackward0, save_output=True)
SigmoidBackward0 = _act_bw.activation_node("SigmoidBackward0", _act_bw.sigmoid_grad_data,
                                           _act_bw.sigmoid_backward)
# tanh form: no overflow for large |x|
sigmoid = _unary("sigmoid", lambda xp, a: 0.5 * xp.tanh(0.5 * a) + 0.5, SigmoidBackward0,
                 save_output=True)
reciprocal = _unary("reciprocal", lambda xp, a: 1 / a,
                    lambda n, g: -g * _saved0(n) * _saved0(n), save_output=True)


def _abs_backward(node, g):
    return g * sign(node.saved_tensors[0])


AbsBackward0 = backward_node("AbsBackward0", _abs_backward)


def abs(input):  # noqa: A001
    """Elementwise absolute value (gradient ``sign(x)``, 0 at 0)."""
    return record(input._backend.xp.abs(input._data), input._backend, AbsBackward0, (input,),
                  saved=(input,))


absolute = abs


def _zero_backward(node, g):
    return g * 0


SignBackward0 = backward_node("SignBackward0", _zero_backward)
FloorBackward0 = backward_node("FloorBackward0", _zero_backward)
CeilBackward0 = backward_node("CeilBackward0", _zero_backward)
RoundBackward0 = backward_node("RoundBackward0", _zero_backward)
TruncBackward0 = backward_node("TruncBackward0", _zero_backward)


def sign(input):
    """-1, 0 or 1 by the sign of each element (gradient 0)."""
    return record(input._backend.xp.sign(input._data), input._backend, SignBackward0, (input,))


def floor(input):
    """Round down (gradient 0)."""
    return record(input._backend.xp.floor(input._data), input._backend, FloorBackward0, (input,))


def ceil(input):
    """Round up (gradient 0)."""
    return record(input._backend.xp.ceil(input._data), input._backend, CeilBackward0, (input,))


def round(input):  # noqa: A001
    """Round half to even (gradient 0)."""
    return record(input._backend.xp.round(input._data), input._backend, RoundBackward0, (input,))


def trunc(input):
    """Round toward zero (gradient 0)."""
    return record(input._backend.xp.trunc(input._data), input._backend, TruncBackward0, (input,))


ReluBackward0 = _act_bw.activation_node("ReluBackward0", _act_bw.threshold_grad_data,
                                        _act_bw.threshold_backward)


def relu(input):
    """``max(input, 0)``; gradient 1 where the output is positive."""
    backend = input._backend
    data = input._data
    # one pass, and NaN stays NaN as in PyTorch
    out = wrap(backend.xp.maximum(data, _zero_like(backend, data.dtype)), backend)
    if input._requires_grad and _state.enabled:
        node = new_node(ReluBackward0, (_edge(input),), out)
        node._saved = (SavedOutput(out),)
        node.args = None
    return out


def _zero_like(backend, native):
    """A 0-d zero of ``native`` dtype (the backend's cached operand when it has them)."""
    cache = backend.scalar_operands
    return backend.xp.zeros((), dtype=native) if cache is None else cache.zero(native)


def _clamp_backward(node, g):
    (x,) = node.saved_tensors
    lo, hi = node.args
    mask = None
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        mask = (x <= hi) if mask is None else mask & (x <= hi)
    return g * mask


ClampBackward1 = backward_node("ClampBackward1", _clamp_backward)


def clamp(input, min=None, max=None):  # noqa: A002
    """Limit values to ``[min, max]``; gradient 1 inside the range (ends included)."""
    if min is None and max is None:
        raise RuntimeError("clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        out = input
        if min is not None:
            out = maximum(out, min if isinstance(min, Tensor) else full_like_scalar(input, min))
        if max is not None:
            out = minimum(out, max if isinstance(max, Tensor) else full_like_scalar(input, max))
        return out
    d = _dt.result_type(input, *(v for v in (min, max) if v is not None))
    if d is not input.dtype:  # a float bound on an integer tensor gives a float result
        input = to_dtype(input, d)
    xp = input._backend.xp
    data = input._data
    if min is not None:
        data = xp.where(data < min, xp.asarray(min, dtype=data.dtype), data)
    if max is not None:
        data = xp.where(data > max, xp.asarray(max, dtype=data.dtype), data)
    return record(data, input._backend, ClampBackward1, (input,), saved=(input,), args=(min, max))


clip = clamp


def full_like_scalar(like: Tensor, value) -> Tensor:
    """A 0-dim tensor holding ``value`` in ``like``'s dtype and device."""
    backend = like._backend
    return Tensor._wrap(backend.xp.asarray(value, dtype=like._data.dtype), backend)


def _maxmin_backward(node, g):
    a, b = node.saved_tensors
    am, bm, is_max = node.args
    pick_a = (a > b) if is_max else (a < b)
    tie = a == b
    share_a = to_native(pick_a, g._data.dtype) + to_native(tie, g._data.dtype) * 0.5
    ga = _grad_for(g * share_a, am) if node._next[0] is not None else None
    gb = _grad_for(g * (1 - share_a), bm) if node._next[1] is not None else None
    return ga, gb


MaximumBackward0 = backward_node("MaximumBackward0", _maxmin_backward)
MinimumBackward0 = backward_node("MinimumBackward0", _maxmin_backward)


def maximum(input, other):
    """Elementwise maximum (ties split the gradient equally, as PyTorch)."""
    backend, ad, bd, ta, tb = _operands("maximum", input, other)
    return record(backend.xp.maximum(ad, bd), backend, MaximumBackward0, (ta, tb),
                  saved=(input, other), args=(_meta(ta), _meta(tb), True))


def minimum(input, other):
    """Elementwise minimum (ties split the gradient equally, as PyTorch)."""
    backend, ad, bd, ta, tb = _operands("minimum", input, other)
    return record(backend.xp.minimum(ad, bd), backend, MinimumBackward0, (ta, tb),
                  saved=(input, other), args=(_meta(ta), _meta(tb), False))


def _where_backward(node, g):
    (cond,) = node.saved_tensors
    am, bm = node.args
    zero = g * 0
    ga = _grad_for(where(cond, g, zero), am) if node._next[1] is not None else None
    gb = _grad_for(where(cond, zero, g), bm) if node._next[2] is not None else None
    return None, ga, gb


WhereBackward0 = backward_node("WhereBackward0", _where_backward)


def where(condition, input, other):
    """Elements of ``input`` where ``condition`` holds, else of ``other``."""
    if not isinstance(condition, Tensor):
        raise TypeError("where: condition must be a bool Tensor")
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
        same_backend("where", condition, ta if ta is not None else tb)
    xp = backend.xp
    if not hasattr(ad, "shape"):
        ad = xp.asarray(ad, dtype=bd.dtype)
    if not hasattr(bd, "shape"):
        bd = xp.asarray(bd, dtype=ad.dtype)
    broadcast_shapes("where", cd.shape, ad.shape, bd.shape)
    return record(xp.where(cd, ad, bd), backend, WhereBackward0, (None, ta, tb),
                  saved=(condition,), args=(_meta(ta), _meta(tb)))


# -- casts ---------------------------------------------------------------------------

def _to_backward(node, g):
    native = node.args
    return to_native(g, native)


ToCopyBackward0 = backward_node("ToCopyBackward0", _to_backward)


def to_native(input: Tensor, native_dtype) -> Tensor:
    """``input`` converted to a native dtype of its backend (differentiable)."""
    if input._data.dtype == native_dtype:
        return input
    data = input._backend.xp.astype(input._data, native_dtype)
    return record(data, input._backend, ToCopyBackward0, (input,), args=input._data.dtype)


def to_dtype(input: Tensor, dtype: _dt.dtype) -> Tensor:
    """``input`` converted to ``dtype`` (no-op when it already has it)."""
    return to_native(input, input._backend.native_dtype(dtype))


# -- comparisons and logic (never differentiable) ---------------------------------------

def _compare(name: str, fwd):
    def op(input, other):
        backend, ad, bd, ta, tb = _operands(name, input, other)
        return Tensor._wrap(fwd(ad, bd), backend)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` as a bool tensor (not differentiable)."
    return op


eq = _compare("eq", lambda a, b: a == b)
ne = _compare("ne", lambda a, b: a != b)
lt = _compare("lt", lambda a, b: a < b)
le = _compare("le", lambda a, b: a <= b)
gt = _compare("gt", lambda a, b: a > b)
ge = _compare("ge", lambda a, b: a >= b)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _logical(name: str, fwd_name: str):
    def op(input, other):
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


def logical_not(input):
    """Elementwise ``not`` as a bool tensor."""
    xp = input._backend.xp
    data = input._data
    if data.dtype != input._backend.native_dtype(_dt.bool):
        data = data != 0
    return Tensor._wrap(xp.logical_not(data), input._backend)


def _bitwise(name: str, fwd):
    def op(input, other):
        backend, ad, bd, ta, tb = _operands(name, input, other)
        dt = (ta if ta is not None else tb).dtype
        if dt.is_floating_point:
            raise RuntimeError(f"{name}: not implemented for floating dtype {dt}")
        return Tensor._wrap(fwd(ad, bd), backend)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise ``{name}`` of bool or integer tensors."
    return op


bitwise_and = _bitwise("bitwise_and", lambda a, b: a & b)
bitwise_or = _bitwise("bitwise_or", lambda a, b: a | b)
bitwise_xor = _bitwise("bitwise_xor", lambda a, b: a ^ b)


def bitwise_not(input):
    """``~input``: logical not for bool tensors, bitwise not for integers."""
    if input.dtype.is_floating_point:
        raise RuntimeError(f"bitwise_not: not implemented for floating dtype {input.dtype}")
    return Tensor._wrap(~input._data, input._backend)


def isnan(input):
    """Where elements are NaN."""
    return Tensor._wrap(input._backend.xp.isnan(input._data), input._backend)


def isinf(input):
    """Where elements are infinite."""
    return Tensor._wrap(input._backend.xp.isinf(input._data), input._backend)


def isfinite(input):
    """Where elements are finite."""
    return Tensor._wrap(input._backend.xp.isfinite(input._data), input._backend)
