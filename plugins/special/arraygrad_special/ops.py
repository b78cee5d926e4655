"""The differentiable special-function ops (``arraygrad.special.*`` and ``Tensor`` methods).

Each op runs its forward on native arrays -- the backend's registered kernel
when there is one and it answers (``dispatch_kernel``: a kernel that declines or
raises falls back), else the portable Array API code in
``arraygrad_special.portable`` -- and records its rule (``defop``), whose
vector-Jacobian product is written with Tensor ops. The backward of one op calls other ops of this
plugin (lgamma -> digamma -> polygamma(1) -> polygamma(2) ..., i0 -> i1 -> i0),
so gradients of any order work.

Only the public API is used: ``arraygrad.extend`` to define the ops, and
``arraygrad.special.erf``, the core's own erf (with its ``ErfBackward0``), which
this plugin does not redefine: it contributes only faster erf kernels to it
(see ``plugin.py``) and ``Tensor.erf``.
"""

from __future__ import annotations

import math
from numbers import Number

import arraygrad as ag
from arraygrad.extend import backend_of, defop, dispatch_kernel, native
from arraygrad.special import erf

from arraygrad_special import portable

__all__ = ["erf", "erfc", "erfinv", "lgamma", "gammaln", "digamma", "psi", "polygamma", "i0",
           "i1", "xlogy", "logit", "expit", "tensor_polygamma"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


# -- plumbing ------------------------------------------------------------------------------

def _check_tensor(op: str, value) -> None:
    if not isinstance(value, ag.Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(value).__name__}")


def _floating(t):
    """``t`` itself if floating, else cast to the default dtype (as PyTorch's int-to-float ops)."""
    return t if t.is_floating_point() else t.to(ag.get_default_dtype())


def _forward(name: str, backend, *arrays, order: int | None = None):
    """``name`` on native ``arrays``: the backend's kernel if any (and willing), else portable.

    ``order``: polygamma's ``n``. The portable code takes it as a Python int; a kernel
    takes it as a 0-d array of the input's dtype on the input's device, because
    ``cupyx.scipy.special.polygamma`` evaluates ``cupy.where(n == 0, ...)`` on it and
    fails on a Python int (``'bool' object has no attribute 'astype'``).
    """
    portable_fn = getattr(portable, name)
    xp = backend.xp
    if order is None:
        return dispatch_kernel(name, backend, lambda *a: portable_fn(xp, *a), *arrays)
    # backend.xp allocates on the backend's own device (one instance per device)
    order_array = xp.asarray(float(order), dtype=arrays[-1].dtype)
    return dispatch_kernel(name, backend, lambda _n, *a: portable_fn(xp, order, *a),
                           order_array, *arrays)


def _unary(name: str, node_name: str, vjp, *, save: str, doc: str, key: str | None = None):
    """A float unary op ``name`` and its rule: ``vjp(g, node)`` reads ``node.self`` (``save=
    "self"``) or ``node.result`` (``save="result"``)."""
    rule = defop(node_name, saves=(save,), vjp=(vjp,), key=key)

    def op(input):
        _check_tensor(name, input)
        x = _floating(input)
        backend = backend_of(x)
        return rule.record(_forward(name, backend, native(x)), backend, (x,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    op.rule = rule
    return op


# -- erfc, erfinv (erf itself is the core's: ``arraygrad.special.erf``) --------------------

erfc = _unary(
    "erfc", "ErfcBackward0", lambda g, n: g * (-_TWO_OVER_SQRT_PI * ag.exp(-n.self ** 2)),
    save="self", doc="The complementary error function ``1 - erf(x)``, elementwise.")

# d erfinv(x) / dx = sqrt(pi)/2 * exp(erfinv(x)^2): the saved output is part of the graph,
# so differentiating this again goes through ErfinvBackward0 itself.
erfinv = _unary(
    "erfinv", "ErfinvBackward0", lambda g, n: g * (_SQRT_PI_OVER_TWO * ag.exp(n.result ** 2)),
    save="result", doc="The inverse error function on ``[-1, 1]`` (``±inf`` at ``±1``).")


# -- gamma family --------------------------------------------------------------------------

lgamma = _unary(
    "lgamma", "LgammaBackward0", lambda g, n: g * digamma(n.self), save="self",
    doc="``log |Gamma(x)|``, elementwise (``inf`` at 0, -1, -2, ...).")

digamma = _unary(
    "digamma", "DigammaBackward0", lambda g, n: g * polygamma(1, n.self), save="self",
    doc="The digamma function ``psi(x) = d/dx lgamma(x)``, elementwise.")

gammaln = lgamma
"""SciPy's name for ``lgamma``."""

psi = digamma
"""SciPy's name for ``digamma``."""


POLYGAMMA = defop("PolygammaBackward0", saves=("self",), params=("n",),
                  vjp=(lambda g, node: g * polygamma(node.n + 1, node.self),))


def polygamma(n, input):
    """The ``n``-th derivative of digamma, ``psi^(n)(x)``, elementwise (``n`` an int >= 0)."""
    if isinstance(n, ag.Tensor) or isinstance(n, bool) or not isinstance(n, Number) \
            or int(n) != n:
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    n = int(n)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    _check_tensor("polygamma", input)
    if n == 0:
        return digamma(input)  # PyTorch records DigammaBackward0 for n == 0 too
    x = _floating(input)
    backend = backend_of(x)
    data = _forward("polygamma", backend, native(x), order=n)
    return POLYGAMMA.record(data, backend, (x,), n=n)


def tensor_polygamma(self, n):
    """``Tensor.polygamma(n)``: ``polygamma(n, self)`` (the method takes ``n`` second)."""
    return polygamma(n, self)


# -- modified Bessel functions -------------------------------------------------------------

i0 = _unary("i0", "I0Backward0", lambda g, n: g * i1(n.self), save="self",
            doc="The modified Bessel function of the first kind, order 0, elementwise.")


def _i1_backward(g, node):
    x = node.self
    # i1'(x) = i0(x) - i1(x)/x, whose limit at 0 is 1/2; x is replaced by 1 where it is 0
    # so the unused branch cannot put 0/0 into the (double) backward
    zero = x == 0
    safe = ag.where(zero, 1.0, x)
    return g * ag.where(zero, 0.5, i0(x) - i1(safe) / safe)


i1 = _unary("i1", "SpecialI1Backward0", _i1_backward, save="self",
            doc="The modified Bessel function of the first kind, order 1, elementwise.")


# -- xlogy ---------------------------------------------------------------------------------

# the recorder sums each gradient back to its input's shape (xlogy broadcasts)
XLOGY = defop("XlogyBackward0", inputs=("self", "other"), saves=("self", "other"), vjp=(
    # PyTorch: d/dx = xlogy(x != 0, y), i.e. 0 where x == 0 (even at y == 0)
    lambda g, n: g * xlogy((n.self != 0).to(n.self.dtype), n.other),
    lambda g, n: g * n.self / n.other))


def _as_operand(value, like, op: str):
    if isinstance(value, ag.Tensor):
        return value
    if isinstance(value, bool) or not isinstance(value, Number):
        raise TypeError(f"{op}(): expected a Tensor or a number, got {type(value).__name__}")
    return ag.tensor(float(value), dtype=like.dtype if like.is_floating_point()
                     else ag.get_default_dtype(), device=like.device)


def xlogy(input, other):
    """``input * log(other)``, and 0 where ``input == 0`` (unless ``other`` is nan).

    Either argument may be a Python number; tensors broadcast and promote.
    """
    if not isinstance(input, ag.Tensor) and not isinstance(other, ag.Tensor):
        raise TypeError("xlogy(): expected at least one Tensor argument")
    x = _as_operand(input, other, "xlogy")  # a number takes the tensor's float dtype
    y = _as_operand(other, x, "xlogy")
    d = ag.promote_types(x.dtype, y.dtype)
    if not d.is_floating_point:
        d = ag.get_default_dtype()
    x, y = x.to(d), y.to(d)
    if x.device != y.device:
        raise RuntimeError(f"xlogy: Expected all tensors to be on the same device, but found at "
                           f"least two devices, {x.device} and {y.device}!")
    backend = backend_of(x)
    data = _forward("xlogy", backend, native(x), native(y))
    return XLOGY.record(data, backend, (x, y))


# -- logit / expit -------------------------------------------------------------------------

def _logit_backward(g, node):
    x, eps = node.self, node.eps
    if eps is None:
        return g / (x * (1 - x))
    # PyTorch: zero gradient outside [eps, 1 - eps]
    lo, hi = eps, 1.0 - eps
    inside = (x >= lo) & (x <= hi)
    xc = ag.clamp(x, lo, hi)
    return ag.where(inside, g / (xc * (1 - xc)), 0.0)


LOGIT = defop("LogitBackward0", saves=("self",), params=("eps",), vjp=(_logit_backward,))


def logit(input, eps=None):
    """``log(x / (1 - x))``; with ``eps``, ``x`` is first clamped to ``[eps, 1 - eps]``."""
    _check_tensor("logit", input)
    x = _floating(input)
    backend = backend_of(x)
    xp = backend.xp
    data = native(x)
    if eps is not None:
        eps = float(eps)
        lo = xp.asarray(eps, dtype=data.dtype)
        hi = xp.asarray(1.0 - eps, dtype=data.dtype)
        # where() rather than clip(): nan must stay nan
        data = xp.where(data < lo, lo, xp.where(data > hi, hi, data))
    out = _forward("logit", backend, data)
    return LOGIT.record(out, backend, (x,), eps=eps)


def _expit_backward(g, node):
    y = node.result
    return g * y * (1 - y)


# PyTorch's special.expit is sigmoid, and its node is SigmoidBackward0 (the core's sigmoid
# rule has that key: this one, computed by the plugin's kernels, keeps its own)
expit = _unary("expit", "SigmoidBackward0", _expit_backward, save="result",
               key="SpecialExpitBackward0",
               doc="The logistic sigmoid ``1 / (1 + exp(-x))`` (``arraygrad.sigmoid``), "
                   "accurate in both tails.")
