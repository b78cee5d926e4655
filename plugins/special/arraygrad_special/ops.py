"""The differentiable special-function ops (``arraygrad.special.*`` and ``Tensor`` methods).

Each op runs its forward on native arrays -- the backend's registered kernel
when there is one (``get_kernel``), else the portable Array API code in
``arraygrad_special.portable`` -- and records a backward node whose formula
is written with Tensor ops. The backward of one op calls other ops of this
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
from arraygrad.extend import OUTPUT, backend_of, backward_node, get_kernel, native, record
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
    kernel = get_kernel(name, backend)
    if kernel is not None:
        # backend.xp allocates on the backend's own device (one instance per device)
        prefix = () if order is None else (
            backend.xp.asarray(float(order), dtype=arrays[-1].dtype),)
        out = kernel(*prefix, *arrays)
        if out is not NotImplemented:
            return out
    prefix = () if order is None else (order,)
    return getattr(portable, name)(backend.xp, *prefix, *arrays)


def _unary(name: str, node_name: str, backward, *, save: str, doc: str):
    """A float unary op ``name`` from its backward (``save``: "input" or "output")."""
    cls = backward_node(node_name, backward)

    def op(input):
        _check_tensor(name, input)
        x = _floating(input)
        backend = backend_of(x)
        data = _forward(name, backend, native(x))
        return record(data, backend, cls, (x,), saved=(x,) if save == "input" else (OUTPUT,))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    op.backward_node = cls
    return op


def _saved(node):
    return node.saved_tensors[0]


# -- erfc, erfinv (erf itself is the core's: ``arraygrad.special.erf``) --------------------

erfc = _unary(
    "erfc", "ErfcBackward0", lambda n, g: g * (-_TWO_OVER_SQRT_PI * ag.exp(-_saved(n) ** 2)),
    save="input", doc="The complementary error function ``1 - erf(x)``, elementwise.")

# d erfinv(x) / dx = sqrt(pi)/2 * exp(erfinv(x)^2): the saved output is part of the graph,
# so differentiating this again goes through ErfinvBackward0 itself.
erfinv = _unary(
    "erfinv", "ErfinvBackward0", lambda n, g: g * (_SQRT_PI_OVER_TWO * ag.exp(_saved(n) ** 2)),
    save="output", doc="The inverse error function on ``[-1, 1]`` (``±inf`` at ``±1``).")


# -- gamma family --------------------------------------------------------------------------

lgamma = _unary(
    "lgamma", "LgammaBackward0", lambda n, g: g * digamma(_saved(n)), save="input",
    doc="``log |Gamma(x)|``, elementwise (``inf`` at 0, -1, -2, ...).")

digamma = _unary(
    "digamma", "DigammaBackward0", lambda n, g: g * polygamma(1, _saved(n)), save="input",
    doc="The digamma function ``psi(x) = d/dx lgamma(x)``, elementwise.")

gammaln = lgamma
"""SciPy's name for ``lgamma``."""

psi = digamma
"""SciPy's name for ``digamma``."""


def _polygamma_backward(node, g):
    (x,) = node.saved_tensors
    return g * polygamma(node.args + 1, x)


PolygammaBackward0 = backward_node("PolygammaBackward0", _polygamma_backward)


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
    return record(data, backend, PolygammaBackward0, (x,), saved=(x,), args=n)


def tensor_polygamma(self, n):
    """``Tensor.polygamma(n)``: ``polygamma(n, self)`` (the method takes ``n`` second)."""
    return polygamma(n, self)


# -- modified Bessel functions -------------------------------------------------------------

i0 = _unary("i0", "I0Backward0", lambda n, g: g * i1(_saved(n)), save="input",
            doc="The modified Bessel function of the first kind, order 0, elementwise.")


def _i1_backward(node, g):
    (x,) = node.saved_tensors
    # i1'(x) = i0(x) - i1(x)/x, whose limit at 0 is 1/2; x is replaced by 1 where it is 0
    # so the unused branch cannot put 0/0 into the (double) backward
    zero = x == 0
    safe = ag.where(zero, 1.0, x)
    return g * ag.where(zero, 0.5, i0(x) - i1(safe) / safe)


i1 = _unary("i1", "SpecialI1Backward0", _i1_backward, save="input",
            doc="The modified Bessel function of the first kind, order 1, elementwise.")


# -- xlogy ---------------------------------------------------------------------------------

def _sum_to(g, shape):
    """``g`` summed down to ``shape`` (undoes broadcasting)."""
    shape = tuple(shape)
    if tuple(g.shape) == shape:
        return g
    lead = g.ndim - len(shape)
    if lead:
        g = g.sum(dim=tuple(range(lead)))
    dims = tuple(i for i, s in enumerate(shape) if s == 1 and g.shape[i] != 1)
    if dims:
        g = g.sum(dim=dims, keepdim=True)
    return g


def _xlogy_backward(node, g):
    x, y = node.saved_tensors
    gx = gy = None
    if node.needs_input_grad(0):
        # PyTorch: d/dx = xlogy(x != 0, y), i.e. 0 where x == 0 (even at y == 0)
        gx = _sum_to(g * xlogy((x != 0).to(x.dtype), y), x.shape)
    if node.needs_input_grad(1):
        gy = _sum_to(g * x / y, y.shape)
    return gx, gy


XlogyBackward0 = backward_node("XlogyBackward0", _xlogy_backward)


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
    return record(data, backend, XlogyBackward0, (x, y), saved=(x, y))


# -- logit / expit -------------------------------------------------------------------------

def _logit_backward(node, g):
    (x,) = node.saved_tensors
    eps = node.args
    if eps is None:
        return g / (x * (1 - x))
    # PyTorch: zero gradient outside [eps, 1 - eps]
    lo, hi = eps, 1.0 - eps
    inside = (x >= lo) & (x <= hi)
    xc = ag.clamp(x, lo, hi)
    return ag.where(inside, g / (xc * (1 - xc)), 0.0)


LogitBackward0 = backward_node("LogitBackward0", _logit_backward)


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
    return record(out, backend, LogitBackward0, (x,), saved=(x,), args=eps)


def _expit_backward(node, g):
    y = _saved(node)
    return g * y * (1 - y)


# PyTorch's special.expit is sigmoid, and its node is SigmoidBackward0.
expit = _unary("expit", "SigmoidBackward0", _expit_backward, save="output",
               doc="The logistic sigmoid ``1 / (1 + exp(-x))`` (``arraygrad.sigmoid``), "
                   "accurate in both tails.")
