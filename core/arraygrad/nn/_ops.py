"""Differentiable primitives ``nn.functional`` needs that Tensor ops cannot express well.

``erf``: the core's op (``ops.families.math_special``: W. J. Cody's rational Chebyshev
approximations).

``gelu``: one op, one node (PyTorch's ``GeluBackward0``), its forward and plain backward on
arrays; the formulas are written once for arrays and Tensors (the recorded vjp, for double
backward and forward mode, runs them in Tensor ops), in the op order of the composite it
replaces (``x * 0.5 * (1 + erf(x / sqrt(2)))``), so its values are unchanged.

``log_sigmoid``: ``min(x, 0) - log1p(exp(-|x|))``, which never overflows; its
backward ``sigmoid(-x)`` has no kink at 0 (composing ``abs`` would give the
wrong gradient there).

Backwards are Tensor ops, so double backward works.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.arguments import tensor_arg
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import to_float_data
from arraygrad.ops._erf import erf_data
from arraygrad.ops.families._special_op import kernel_data
from arraygrad.ops.families.math_special import erf
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode


__all__ = ["erf", "gelu", "log_sigmoid"]

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)  # the normal density's factor
_BETA = math.sqrt(2.0 / math.pi)  # the tanh approximation's
_KAPPA = 0.044715


def gelu_value(x: Any, approximate: str, erf_fn: Callable[[Any], Any],
               tanh_fn: Callable[[Any], Any]) -> Any:
    """GELU of ``x`` (a native array or a Tensor, with its namespace's ``erf``/``tanh``):
    ``x * Phi(x)``, or its tanh approximation."""
    if approximate == "none":
        return x * 0.5 * (1.0 + erf_fn(x * _SQRT1_2))
    inner = (x + x * x * x * _KAPPA) * _BETA
    return x * 0.5 * (1.0 + tanh_fn(inner))


def gelu_grad(g: Any, x: Any, approximate: str, erf_fn: Callable[[Any], Any],
              exp_fn: Callable[[Any], Any], tanh_fn: Callable[[Any], Any]) -> Any:
    """GELU's vector-Jacobian product (arrays or Tensors): ``g * (Phi(x) + x * phi(x))``, or
    the derivative of the tanh approximation, PyTorch's formulas."""
    if approximate == "none":
        cdf = (1.0 + erf_fn(x * _SQRT1_2)) * 0.5
        return g * (cdf + x * (exp_fn(x * x * -0.5) * _INV_SQRT_2PI))
    x_sq = x * x
    t = tanh_fn((x + x_sq * x * _KAPPA) * _BETA)
    return g * ((1.0 + t) * 0.5 + x * 0.5 * (1.0 - t * t) * ((x_sq * (3.0 * _KAPPA) + 1.0) * _BETA))


def _erf_array(backend: Backend) -> Callable[[Any], Any]:
    return lambda a: kernel_data("erf", backend, erf_data, a)


def _gelu_first_order(gd: Any, node: RuleNode, backend: Backend) -> Any:
    xp = backend.xp
    return gelu_grad(gd, node.saved_data("self"), node.args.get("approximate", "none"),
                     _erf_array(backend), xp.exp, xp.tanh)


GELU = defop("GeluBackward0", jvp=ELEMENTWISE, saves=("self",), params={"approximate": "none"},
             vjp=(lambda g, n: gelu_grad(g, n.self, n.approximate, erf, ew.exp, ew.tanh),),
             first_order=(_gelu_first_order,))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU of a floating tensor (``approximate``: ``"none"`` or ``"tanh"``, checked by the
    caller): computed on its array, one node."""
    backend = input._backend
    data = gelu_value(input._data, approximate, _erf_array(backend), backend.xp.tanh)
    if approximate == "none":
        return GELU.record(data, backend, (input,))
    return GELU.record(data, backend, (input,), approximate=approximate)

# sigmoid(-x), not a composition through abs: no kink at 0
LOG_SIGMOID = defop("LogSigmoidBackward0", jvp=ELEMENTWISE, saves=("self",),
                    vjp=(lambda g, n: g * ew.sigmoid(-n.self),))


def log_sigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))`` computed without overflow."""
    check_kernel_dtype("log_sigmoid", input)
    tensor_arg("log_sigmoid", input)
    backend = input._backend
    xp = backend.xp
    x = to_float_data(input)
    data = xp.minimum(x, xp.zeros_like(x)) - xp.log1p(xp.exp(-xp.abs(x)))
    return LOG_SIGMOID.record(data, backend, (input,))
