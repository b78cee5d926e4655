"""Activation functions of ``nn.functional``, composed from differentiable Tensor ops.

Branches that can overflow (``exp`` in ``elu``) are fed a clamped argument, so
the branch ``where`` does not pick never produces ``inf`` (whose zero gradient
would turn into ``0 * inf = nan`` in backward).
"""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.arguments import tensor_arg
from arraygrad.amp import state as _amp
from arraygrad.ops import activation as _act, elementwise as ew
from arraygrad.ops.families.nn_methods import hardshrink, prelu  # noqa: F401  (nn.functional's)
from arraygrad.nn import _ops
from arraygrad.tensor import _wrap_dim

from arraygrad.tensor import Tensor

__all__ = ["relu", "leaky_relu", "gelu", "silu", "elu", "softplus", "sigmoid", "tanh", "softmax",
           "log_softmax", "logsigmoid", "hardtanh", "relu6", "selu", "celu", "mish", "hardswish",
           "hardsigmoid", "softsign", "tanhshrink", "softmin", "threshold", "prelu", "rrelu", "glu",
           "hardshrink", "softshrink", "relu_", "elu_", "hardtanh_", "leaky_relu_", "rrelu_",
           "threshold_", "celu_", "selu_"]


def _operand(input: Tensor, inplace: bool) -> Tensor:
    """What an ``inplace=True`` form computes from: a copy where autograd records the input.

    The in-place write bumps ``input``'s version; a rule that saved ``input`` itself
    (``clamp``, ``where``...) would then refuse to run backward, so the formula reads
    a clone (PyTorch's in-place kernels differentiate through their result instead).
    """
    return input.clone() if inplace and input.requires_grad else input


def _inplace_result(input: Tensor, out: Tensor) -> Tensor:
    """Write ``out`` into ``input`` (for the ``inplace=True`` forms) and return ``input``."""
    return input.copy_(out)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(x, 0)``."""
    return input.relu_() if inplace else ew.relu(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where positive, else ``negative_slope * x``."""
    check_kernel_dtype("leaky_relu", input)
    if type(negative_slope) in (float, int) and isinstance(input, Tensor) \
            and input._data.dtype in input._backend.floating_natives:
        # one node, PyTorch's LeakyReluBackward0 (``inplace``: then written into the input)
        if not inplace:
            return _ops.leaky_relu(input, negative_slope)
        return _inplace_result(input, _ops.leaky_relu(_operand(input, True), negative_slope))
    x = _operand(input, inplace)
    out = ew.where(x > 0, x, x * negative_slope)
    return _inplace_result(input, out) if inplace else out


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` with the exact normal CDF, or its tanh approximation with ``approximate='tanh'``
    (float16/bfloat16 computed in float32, rounded once, as PyTorch's kernel)."""
    check_kernel_dtype("gelu", input)
    tensor_arg("gelu", input)
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return ew.computed_in_float32(input, lambda x: _ops.gelu(x, approximate))


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (swish)."""
    check_kernel_dtype("silu", input)
    tensor_arg("silu", input)
    x = _operand(input, inplace)
    # float16/bfloat16 in float32, rounded once, as PyTorch's kernel
    out = ew.computed_in_float32(x, lambda v: v * ew.sigmoid(v))
    return _inplace_result(input, out) if inplace else out


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, else ``alpha * (exp(x) - 1)``."""
    check_kernel_dtype("elu", input)
    x = _operand(input, inplace)
    # PyTorch's test is x <= 0, so NaN takes the linear branch; the exp branch sees 0 elsewhere
    # (so neither inf nor NaN reaches its gradient)
    nonpositive = x <= 0
    negative = ew.expm1(ew.where(nonpositive, x, ew.full_like_scalar(x, 0.0))) * alpha
    out = ew.where(nonpositive, negative, x)
    return _inplace_result(input, out) if inplace else out


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    check_kernel_dtype("softplus", input)
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


# -- piecewise-linear family: strict masks give PyTorch's zero gradient at every kink ----------

def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """``x`` clamped to ``[min_val, max_val]``; the gradient is 1 strictly inside, else 0."""
    check_kernel_dtype("hardtanh", input)
    tensor_arg("hardtanh", input)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        if not input.dtype.is_signed and min_val < 0:
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
        min_val, max_val = int(min_val), int(max_val)  # an integer tensor stays integer
    x = _operand(input, inplace)
    if input.dtype.is_floating_point:
        out = _ops.hardtanh(x, float(min_val), float(max_val))  # one node, HardtanhBackward0
    else:  # an integer tensor: no gradient, the same values
        out = ew.where(x <= min_val, min_val, ew.where(x >= max_val, max_val, x))
    return _inplace_result(input, out) if inplace else out


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place ``hardtanh``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``min(max(x, 0), 6)`` (``hardtanh(x, 0, 6)``: gradient 0 at 0 and at 6)."""
    check_kernel_dtype("relu6", input)
    return hardtanh(input, 0.0, 6.0, inplace)


def relu_(input: Tensor) -> Tensor:
    """In-place ``relu``."""
    return relu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place ``leaky_relu``."""
    return leaky_relu(input, negative_slope, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``elu``."""
    return elu(input, alpha, inplace=True)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants of Klambauer et al."""
    tensor_arg("selu", input)
    check_kernel_dtype("elu", input)
    x = _operand(input, inplace)
    out = elu(x, SELU_ALPHA) * SELU_SCALE
    return _inplace_result(input, out) if inplace else out


def selu_(input: Tensor) -> Tensor:
    """In-place ``selu``."""
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    # the exp branch sees only non-positive arguments (see the module docstring)
    x = _operand(input, inplace)
    nonpositive = x <= 0  # as elu: NaN takes the linear branch, the exp branch sees 0 elsewhere
    negative = ew.expm1(ew.where(nonpositive, x, ew.full_like_scalar(x, 0.0)) * (1.0 / alpha))
    out = ew.where(nonpositive, negative * alpha, x)
    return _inplace_result(input, out) if inplace else out


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``celu``."""
    return celu(input, alpha, inplace=True)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))`` (softplus without a threshold, computed stably)."""
    check_kernel_dtype("mish", input)
    x = _operand(input, inplace)
    out = x * ew.tanh(-_ops.log_sigmoid(-x))
    return _inplace_result(input, out) if inplace else out


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``: gradient 0 at and below -3, 1 at and above 3."""
    check_kernel_dtype("hardswish", input)
    tensor_arg("hardswish", input)
    x = _operand(input, inplace)
    # PyTorch's branches: x * 0 up to -3 (NaN at -inf, as its forward), x(x+3)/6 below 3, else
    # x (NaN too); the middle formula sees 0 outside its range, so its gradient stays finite
    low, middle = x <= -3.0, x < 3.0
    xm = ew.where(low | ~middle, ew.full_like_scalar(x, 0.0), x)
    out = ew.where(low, x * 0.0, ew.where(middle, xm * (xm + 3.0) * (1.0 / 6.0), x))
    return _inplace_result(input, out) if inplace else out


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``: gradient 1/6 strictly inside (-3, 3), else 0."""
    x = _operand(input, inplace)
    out = hardtanh(x + 3.0, 0.0, 6.0) * (1.0 / 6.0)
    return _inplace_result(input, out) if inplace else out


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``."""
    check_kernel_dtype("softsign", input)
    return input / (ew.abs(input) + 1.0)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``."""
    return input - ew.tanh(input)


def softmin(input: Tensor, dim: Any = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-x)`` along ``dim``."""
    if dim is None:
        warnings.warn("Implicit dimension choice for softmin has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=_stacklevel)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _act.softmax(-input, dim, dtype=dtype)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value`` (gradient 0 at the threshold)."""
    x = _operand(input, inplace)
    out = ew.where(x > threshold, x, value)
    return _inplace_result(input, out) if inplace else out


_threshold = threshold  # reachable where the ``threshold`` argument shadows the function


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place ``threshold``."""
    return _threshold(input, threshold, value, inplace=True)


def _check_lambd(input: Tensor, lambd: float) -> None:
    if lambd < 0:
        big = 1.7976931348623157e308 if input.dtype.itemsize == 8 else 3.4028234663852886e38
        raise RuntimeError(f"lambda must be in range [0, {big:g}] for input dtype "
                           f"{input.dtype.name.capitalize()}, but found {lambd:g}")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    _check_lambd(input, lambd)
    return ew.where(input > lambd, input - lambd, ew.where(input < -lambd, input + lambd, 0.0))


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False, *, generator: Any = None) -> Tensor:
    """Randomized leaky ReLU: negative slopes drawn from ``U(lower, upper)`` when ``training``.

    In evaluation the slope is the mean ``(lower + upper) / 2``. The slopes are a
    constant of the graph: the gradient at ``x <= 0`` is the drawn slope. ``generator``
    (keyword only; ``torch.rrelu``'s) draws them.
    """
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    from arraygrad.creation import empty

    x = _operand(input, inplace)
    noise = empty(*x.shape, dtype=x.dtype, device=x.device).uniform_(lower, upper,
                                                                    generator=generator)
    out = ew.where(x > 0, x, x * noise)
    return _inplace_result(input, out) if inplace else out


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """In-place ``rrelu``."""
    return rrelu(input, lower, upper, training, inplace=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """Gated linear unit: ``a * sigmoid(b)`` where ``a, b`` are the halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, input.ndim, "glu")
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size "
                           f"{input.shape[d]}")
    a, b = input.chunk(2, d)
    return a * ew.sigmoid(b)
