"""Differentiable primitives ``nn.functional`` needs that Tensor ops cannot express well.

``erf``: the core's op (``ops.families.math_special``: W. J. Cody's rational Chebyshev
approximations).

``gelu``: one op, one node (PyTorch's ``GeluBackward0``), its forward and plain backward on
arrays; the formulas are written once for arrays and Tensors (the recorded vjp, for double
backward and forward mode, runs them in Tensor ops), in the op order of the composite it
replaces (``x * 0.5 * (1 + erf(x / sqrt(2)))``), so its values are unchanged.

``leaky_relu``: one node (PyTorch's ``LeakyReluBackward0``): ``x > 0 ? x : x * slope`` and
its backward ``x > 0 ? g : g * slope`` on arrays (it was three recorded ops: a comparison, a
product and a ``where``).

``log_sigmoid``: ``min(x, 0) - log1p(exp(-|x|))``, which never overflows; its
backward ``sigmoid(-x)`` has no kink at 0 (composing ``abs`` would give the
wrong gradient there).

Backwards are Tensor ops, so double backward works.
"""

from __future__ import annotations

import math
import struct
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.transform_state import array_kernel
from arraygrad.ops.arguments import tensor_arg
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import opmath_apply, to_float_data
from arraygrad.ops.elementwise_first_order import real_dense
from arraygrad.backends.scalar_operands import scalar_operand
from arraygrad.ops._erf import erf_data
from arraygrad.ops.families._special_op import kernel_data
from arraygrad.ops.families.math_special import erf
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode


__all__ = ["erf", "gelu", "hardtanh", "leaky_relu", "log_sigmoid"]

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)  # the normal density's factor
_BETA = math.sqrt(2.0 / math.pi)  # the tanh approximation's
_KAPPA = 0.044715


def gelu_inner(x: Any, approximate: str, erf_fn: Callable[[Any], Any],
               tanh_fn: Callable[[Any], Any]) -> Any:
    """GELU's transcendental part of ``x`` (a native array or a Tensor, with its namespace's
    ``erf``/``tanh``): ``erf(x / sqrt(2))``, or ``tanh`` of the approximation's argument."""
    if approximate == "none":
        return erf_fn(x * _SQRT1_2)
    return tanh_fn((x + x * x * x * _KAPPA) * _BETA)


def gelu_grad(g: Any, x: Any, inner: Any, approximate: str, exp_fn: Callable[[Any], Any]) -> Any:
    """GELU's vector-Jacobian product (arrays or Tensors) from ``x`` and its ``gelu_inner``:
    ``g * (Phi(x) + x * phi(x))``, or the derivative of the tanh approximation (PyTorch's
    formulas)."""
    if approximate == "none":
        cdf = (1.0 + inner) * 0.5
        return g * (cdf + x * (exp_fn(x * x * -0.5) * _INV_SQRT_2PI))
    return g * ((1.0 + inner) * 0.5 + x * 0.5 * (1.0 - inner * inner) *
                ((x * x * (3.0 * _KAPPA) + 1.0) * _BETA))


def _gelu_first_order(gd: Any, node: RuleNode, backend: Backend) -> Any:
    # the forward's erf (or tanh) read back, not computed again: erf is most of gelu's time
    return gelu_grad(gd, node.saved_data("self"), node.saved_data("inner"),
                     node.args.get("approximate", "none"), backend.xp.exp)


def _gelu_vjp(g: Tensor, n: RuleNode) -> Tensor:
    # recomputed in Tensor ops: differentiable again (create_graph, forward mode)
    x, approximate = n.self, n.approximate
    return gelu_grad(g, x, gelu_inner(x, approximate, erf, ew.tanh), approximate, ew.exp)


GELU = defop("GeluBackward0", jvp=ELEMENTWISE, saves=("self", "inner"), uses=(("self", "inner"),),
             params={"approximate": "none"}, vjp=(_gelu_vjp,), first_order=(_gelu_first_order,))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """GELU of a floating tensor (``approximate``: ``"none"`` or ``"tanh"``, checked by the
    caller): computed on its array, one node; ``x * 0.5 * (1 + inner)``, the op order of the
    composite it replaced."""
    backend = input._backend
    x = input._data
    inner = gelu_inner(x, approximate,
                       lambda a: kernel_data("erf", backend, erf_data, a), backend.xp.tanh)
    data = x * 0.5 * (1.0 + inner)
    if approximate == "none":
        return GELU.record(data, backend, (input,), inner=inner)
    return GELU.record(data, backend, (input,), approximate=approximate, inner=inner)

def _leaky_relu_first_order(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``leaky_relu``'s vjp on arrays for a real float32/float64 gradient (the same operations,
    so the same values); None for the rest (float16/bfloat16 multiply in float32 there)."""
    if not real_dense(gd, backend):
        return None
    xd = n.saved_data("self")
    slope = n.negative_slope
    if _blend_is_exact(backend.xp.finfo(gd.dtype).bits, slope):
        return leaky_relu_grad_data(backend, gd, xd, slope)
    return backend.xp.where(xd > 0, gd, gd * scalar_operand(backend, slope, gd.dtype))


def _to_float32(value: float) -> float:
    return struct.unpack("f", struct.pack("f", value))[0]


def _blend_is_exact(bits: int, slope: float) -> bool:
    """Whether ``1 - slope`` and ``slope``, each rounded to the float dtype of ``bits``, sum to
    exactly 1 there (float32's sum computed in float64 and rounded once is float32's own: 53
    bits hold two 24-bit significands' sum)."""
    if bits == 64:
        return (1.0 - slope) + slope == 1.0
    if bits == 32:
        return _to_float32(_to_float32(1.0 - slope) + _to_float32(slope)) == 1.0
    return False


@array_kernel
def leaky_relu_grad_data(backend: Backend, gd: Any, xd: Any, slope: float) -> Any:
    """``g`` where ``x > 0``, else ``g * slope`` (PyTorch's, infinities and NaN included), as
    ``g`` times a factor that is exactly 1 or ``slope``: ``mask * (1 - slope) + slope``, for a
    slope whose two parts sum to 1 in the dtype (``_blend_is_exact``). Branch-free passes:
    NumPy's ``where`` on a random mask is ~10x slower than the four."""
    dtype = gd.dtype
    factor = backend.xp.astype(xd > 0, dtype)
    factor *= scalar_operand(backend, 1.0 - slope, dtype)
    factor += scalar_operand(backend, slope, dtype)
    factor *= gd
    return factor


LEAKY_RELU = defop("LeakyReluBackward0", jvp=ELEMENTWISE, saves=("self",),
                   params={"negative_slope": 0.01},
                   vjp=(lambda g, n: ew.where(n.self > 0, g, g * n.negative_slope),),
                   first_order=(_leaky_relu_first_order,))


def leaky_relu(input: Tensor, negative_slope: float) -> Tensor:
    """``x`` where positive, else ``negative_slope * x``, of a floating tensor (checked by the
    caller), one node; float16/bfloat16 computed in float32 and rounded once, as PyTorch."""
    backend = input._backend
    xp = backend.xp
    x = input._data

    def compute(v: Any) -> Any:
        scaled = v * scalar_operand(backend, negative_slope, v.dtype)
        if 0.0 < negative_slope <= 1.0:
            # ``v > 0 ? v : slope * v`` is their maximum for such a slope, exactly (``slope *
            # v`` lies between 0 and ``v``; -0.0, NaN and the infinities give themselves; a
            # zero slope would make NaN of inf): one branch-free pass, where NumPy's
            # ``where`` on a random mask is ~15x slower
            return xp.maximum(v, scaled)
        return xp.where(v > 0, v, scaled)

    data = opmath_apply(backend, compute, x) if x.dtype in backend.reduced_floating_natives \
        else compute(x)
    return LEAKY_RELU.record(data, backend, (input,), negative_slope=negative_slope)


@array_kernel
def inside_grad_data(backend: Backend, gd: Any, xd: Any, low: Any, high: Any) -> Any:
    """``g`` where ``low < x < high`` or ``x`` is NaN (PyTorch's ``x <= low || x >= high ? 0 :
    g``), else 0: ``g`` times the 0/1 mask, branch-free (an infinite or NaN ``g`` outside gives
    NaN there, PyTorch's 0; NumPy's ``where`` on a random mask is ~10x slower)."""
    xp = backend.xp
    mask = xp.astype(xp.logical_not((xd <= low) | (xd >= high)), gd.dtype)
    mask *= gd
    return mask


def _hardtanh_first_order(gd: Any, n: RuleNode, backend: Backend) -> Any:
    if not real_dense(gd, backend):
        return None
    return inside_grad_data(backend, gd, n.saved_data("self"), n.min_val, n.max_val)


# PyTorch's: the gradient is 1 strictly inside (min_val, max_val) and at NaN, 0 at and past
# either bound
HARDTANH = defop("HardtanhBackward0", jvp=ELEMENTWISE, saves=("self",),
                 params={"min_val": -1.0, "max_val": 1.0},
                 vjp=(lambda g, n: ew.where((n.self <= n.min_val) | (n.self >= n.max_val),
                                            ew.full_like_scalar(g, 0.0), g),),
                 first_order=(_hardtanh_first_order,))


def hardtanh(input: Tensor, min_val: float, max_val: float) -> Tensor:
    """``input`` clamped to ``[min_val, max_val]`` (checked by the caller), one node."""
    backend = input._backend
    data = ew.clamp_data(backend, input._data, min_val, max_val)
    return HARDTANH.record(data, backend, (input,), min_val=min_val, max_val=max_val)


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
