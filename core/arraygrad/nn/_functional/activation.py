"""Activation functions of ``nn.functional``, composed from differentiable Tensor ops.

Branches that can overflow (``exp`` in ``elu``) are fed a clamped argument, so
the branch ``where`` does not pick never produces ``inf`` (whose zero gradient
would turn into ``0 * inf = nan`` in backward).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from arraygrad.ops import activation as _act, elementwise as ew
from arraygrad.nn import _ops

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["relu", "leaky_relu", "gelu", "silu", "elu", "softplus", "sigmoid", "tanh", "softmax",
           "log_softmax", "logsigmoid"]


def _inplace_result(input: Tensor, out: Tensor) -> Tensor:
    """Write ``out`` into ``input`` (for the ``inplace=True`` forms) and return ``input``."""
    return input.copy_(out)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)``."""
    return input.relu_() if inplace else ew.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where positive, else ``negative_slope * x``."""
    out = ew.where(input > 0, input, input * negative_slope)
    return _inplace_result(input, out) if inplace else out


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` with the exact normal CDF, or its tanh approximation with ``approximate='tanh'``."""
    if approximate == "none":
        return input * 0.5 * (1.0 + _ops.erf(input * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        inner = (input + input * input * input * 0.044715) * math.sqrt(2.0 / math.pi)
        return input * 0.5 * (1.0 + ew.tanh(inner))
    raise RuntimeError("approximate argument must be either none or tanh.")


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (swish)."""
    out = input * ew.sigmoid(input)
    return _inplace_result(input, out) if inplace else out


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, else ``alpha * (exp(x) - 1)``."""
    negative = ew.expm1(ew.clamp(input, max=0.0)) * alpha
    out = ew.where(input > 0, input, negative)
    return _inplace_result(input, out) if inplace else out


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    scaled = input * beta
    smooth = -_ops.log_sigmoid(-scaled)  # log1p(exp(z)) without overflow
    if beta != 1:
        smooth = smooth / beta
    return ew.where(scaled > threshold, input, smooth)


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, stable for large ``|x|``."""
    return _ops.log_sigmoid(input)


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-x))``."""
    return ew.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """Hyperbolic tangent."""
    return ew.tanh(input)


def softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    return _act.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` along ``dim``, computed stably."""
    return _act.log_softmax(input, dim, dtype=dtype)
