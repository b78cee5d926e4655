"""The gamma family of special functions: ``lgamma``, ``digamma``, ``polygamma``, ``mvlgamma``,
``igamma``/``igammac`` (``torch.*``, the ``Tensor`` methods and their in-place forms) and
``torch.special``'s ``zeta``; the array work is ``ops._special``'s (portable), or a plugin's
kernel registered under the op's name.

Gradients are PyTorch's: ``lgamma' = digamma``, ``digamma' = polygamma(1)``, ``polygamma(n)' =
polygamma(n + 1)``, ``d igamma(a, x) / dx = x^(a-1) e^-x / Gamma(a)``, ``d zeta(x, q) / dq =
-x zeta(x + 1, q)``; the gradients PyTorch does not implement (igamma's and igammac's in ``a``,
zeta's in ``x``) raise its NotImplementedError when a backward reaches them.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Callable

from arraygrad.ops import elementwise as ew
from arraygrad.ops._special import gamma as _gamma, incomplete_gamma as _igamma
from arraygrad.ops.casting import to_float_data
from arraygrad.ops.families._special_op import binary_op, check_tensor, unary_op
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.plugins.registry import dispatch_kernel
from arraygrad.tensor import Tensor

__all__ = ["lgamma", "digamma", "polygamma", "mvlgamma", "igamma", "igammac", "gammainc",
           "gammaincc", "zeta",
           "FUNCTIONS", "METHODS", "INPLACE"]

LGAMMA = defop("LgammaBackward0", jvp=ELEMENTWISE, saves=("self",),
               vjp=(lambda g, n: g * digamma(n.self),))
lgamma = unary_op("lgamma", LGAMMA, _gamma.lgamma,
                  "``log |Gamma(x)|``, elementwise (inf at 0, -1, -2, ... and at +-inf).")

DIGAMMA = defop("DigammaBackward0", jvp=ELEMENTWISE, saves=("self",),
                vjp=(lambda g, n: g * polygamma(1, n.self),))
digamma: Callable[[Tensor], Tensor] = unary_op("digamma", DIGAMMA, _gamma.digamma,
                   "The digamma function ``psi(x) = d/dx lgamma(x)``, elementwise.")

POLYGAMMA = defop("PolygammaBackward0", jvp=ELEMENTWISE, saves=("self",), params=("n",),
                  vjp=(lambda g, node: g * polygamma(node.n + 1, node.self),))


def polygamma(n: int, input: Tensor) -> Tensor:
    """The ``n``-th derivative of digamma, ``psi^(n)(x)``, elementwise (``n`` an int >= 0)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    check_tensor("polygamma", input, position=2)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if n == 0:
        return digamma(input)  # PyTorch records DigammaBackward0 for n == 0 too
    backend = input._backend
    xp = backend.xp
    x = to_float_data(input)
    # a kernel takes the order as a 0-d array of the input's dtype (cupyx needs an array)
    order = xp.asarray(float(n), dtype=x.dtype)
    data = xp.empty_like(x) if not backend.holds_data else dispatch_kernel(  # meta: x's shape
        "polygamma", backend, lambda _n, a: _gamma.polygamma(xp, n, a), order, x)
    return POLYGAMMA.record(data, backend, (input,), n=n)


def _tensor_polygamma(self: Tensor, n: int) -> Tensor:
    """``Tensor.polygamma(n)``: ``polygamma(n, self)`` (the method takes ``n`` second)."""
    return polygamma(n, self)


def _mvlgamma_grad(g: Tensor, node: Any) -> Tensor:
    x = node.self
    total = digamma(x)
    for j in range(1, node.p):
        total = total + digamma(x - 0.5 * j)
    return g * total


MVLGAMMA = defop("MvlgammaBackward0", jvp=ELEMENTWISE, saves=("self",), params=("p",),
                 vjp=(_mvlgamma_grad,))


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``:
    ``sum_{j<p} lgamma(x - j/2) + p (p-1)/4 log(pi)``."""
    check_tensor("mvlgamma", input)
    if isinstance(p, bool) or not isinstance(p, int):
        raise TypeError(f"mvlgamma(): argument 'p' (position 2) must be int, not "
                        f"{type(p).__name__}")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    backend = input._backend
    xp = backend.xp
    x = to_float_data(input)
    # PyTorch 2.13 checks no domain: x <= (p-1)/2 reaches a pole of lgamma (inf) or beyond
    return MVLGAMMA.record(_gamma.mvlgamma(xp, x, p), backend, (input,), p=p)


def _not_implemented(what: str) -> Callable[[Tensor, Any], Tensor]:
    def vjp(g: Tensor, node: Any) -> Tensor:
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    return vjp


def _igamma_x_grad(g: Tensor, node: Any) -> Tensor:
    """d P(a, x) / dx = x^(a-1) e^-x / Gamma(a)."""
    a, x = node.self, node.other
    if isinstance(a, Number):
        a = ew.full_like_scalar(x, a)
    return g * ew.exp((a - 1) * ew.log(x) - x - lgamma(a))


IGAMMA = defop("IgammaBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
               vjp=(_not_implemented("igamma: input"), _igamma_x_grad))
IGAMMAC = defop("IgammacBackward0", jvp=ELEMENTWISE, inputs=("self", "other"), saves=("self", "other"),
                vjp=(_not_implemented("igammac: input"), lambda g, n: -_igamma_x_grad(g, n)))

igamma = binary_op("igamma", IGAMMA, _igamma.igamma,
                   "The regularized lower incomplete gamma function ``P(input, other)``.",
                   tensors_only=True)
igammac = binary_op("igammac", IGAMMAC, _igamma.igammac,
                    "The regularized upper incomplete gamma function ``Q(input, other) = "
                    "1 - P(input, other)``.", tensors_only=True)
gammainc = binary_op("igamma", IGAMMA, _igamma.igamma,
                     "``torch.special.gammainc``: the regularized lower incomplete gamma "
                     "function ``P(input, other)`` (``igamma``).", tensors_only=True,
                     label="special_gammainc")
gammaincc = binary_op("igammac", IGAMMAC, _igamma.igammac,
                      "``torch.special.gammaincc``: the regularized upper incomplete gamma "
                      "function ``Q(input, other)`` (``igammac``).", tensors_only=True,
                      label="special_gammaincc")


def _zeta_q_grad(g: Tensor, node: Any) -> Tensor:
    """d zeta(x, q) / dq = -x zeta(x + 1, q)."""
    x, q = node.self, node.other
    return g * -x * zeta(x + 1, q)


ZETA = tuple(defop(f"SpecialZetaBackward{i}", jvp=ELEMENTWISE, inputs=("self", "other"),
                   saves=("self", "other"), vjp=(_not_implemented("zeta"), _zeta_q_grad))
             for i in range(3))
zeta = binary_op("zeta", ZETA, _gamma.zeta,
                 "The Hurwitz zeta function ``sum_k (other + k)^-input``.")


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "lgamma": lgamma, "digamma": digamma, "polygamma": polygamma, "mvlgamma": mvlgamma,
    "igamma": igamma, "igammac": igammac}
"""Exported as ``arraygrad.<name>``."""

METHODS: dict[str, Callable[..., Any]] = {
    "lgamma": lgamma, "digamma": digamma, "polygamma": _tensor_polygamma, "mvlgamma": mvlgamma,
    "igamma": igamma, "igammac": igammac}
"""Bound as ``Tensor.<name>``."""

INPLACE: dict[str, Callable[..., Any]] = {
    "lgamma_": lgamma, "digamma_": digamma, "polygamma_": _tensor_polygamma,
    "mvlgamma_": mvlgamma, "igamma_": igamma, "igammac_": igammac}
"""Bound as in-place ``Tensor.<name>``."""
