"""``softmax`` and ``log_softmax`` along a dimension, computed without overflow."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.arguments import tensor_arg
from arraygrad import dtypes as _dt
from arraygrad.amp import state as _amp
from arraygrad.transform_state import array_kernel
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import opmath_apply, to_float_data
from arraygrad.ops.elementwise_first_order import softmax_grad
from arraygrad.ops.rule import defop
from arraygrad.tensor import Tensor, _wrap_dim

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["softmax", "log_softmax"]


def _softmax_kernel(op: str, input: Tensor, d: int) -> str:
    """The name of PyTorch's (log_)softmax CPU kernel for dim ``d`` (its dtype errors say it)."""
    return f"{op}_lastdim_kernel_impl" if d == input.ndim - 1 or input.ndim == 0 else f"{op}_kernel_impl"


def _dim(input: Tensor, dim: int | None, op: str) -> int:
    if not isinstance(input, Tensor):
        tensor_arg(op, input)  # raises
    if dim is None:
        warnings.warn(f"Implicit dimension choice for {op} has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=3)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _wrap_dim(dim, input.ndim, op)


# jvp: the Jacobian diag(y) - y y^T is symmetric, so the tangent takes the vjp's formula
SOFTMAX = defop("SoftmaxBackward0",
                jvp=lambda t, n: n.result * (t - (t * n.result).sum(n.dim, keepdim=True)), saves=("result",), params=("dim",), exact=True,
                vjp=(lambda g, n: n.result * (g - (g * n.result).sum(n.dim, keepdim=True)),),
                first_order=(softmax_grad,))


def softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    if _amp.on and dtype is None:  # autocast (arraygrad.amp.state)
        input, = _amp.cast("softmax", input)
    if dtype is not None:
        input = ew.to_dtype(input, dtype)
    d = _dim(input, dim, "softmax")
    check_kernel_dtype("softmax", input, _softmax_kernel("softmax", input, d))
    xp = input._backend.xp
    x = to_float_data(input)
    if x.ndim == 0:
        data = xp.ones_like(x)
    elif x.size == 0:  # nothing to normalise (and no max to take): an empty result
        data = xp.zeros_like(x)
    else:
        def compute(x: Any) -> Any:
            e = xp.exp(x - xp.max(x, axis=d, keepdims=True))
            return e / xp.sum(e, axis=d, keepdims=True)

        # float16/bfloat16 in float32, rounded once, as PyTorch's kernel
        data = compute(x) if x.dtype not in input._backend.reduced_floating_natives else \
            opmath_apply(input._backend, compute, x)
    return SOFTMAX.record(data, input._backend, (input,), dim=d)


def _log_softmax_backward(g: Tensor, y: Tensor, d: Any) -> Tensor:
    """``g - exp(y) * sum(g)`` along ``d``, in Tensor ops (recorded under create_graph)."""
    return g - ew.exp(y) * g.sum(d, keepdim=True)


@array_kernel
def _log_softmax_grad_data(backend: Backend, gd: Any, yd: Any, d: Any) -> Any:
    """``_log_softmax_backward`` on arrays (first order)."""
    xp = backend.xp
    if gd.ndim == 0:
        return gd - xp.exp(yd) * gd
    scaled = xp.exp(yd)
    scaled *= xp.sum(gd, axis=d, keepdims=True)  # a fresh array: in place
    return gd - scaled


LOG_SOFTMAX = defop(
    "LogSoftmaxBackward0",
    jvp=lambda t, n: t - (n.result.exp() * t).sum(n.dim, keepdim=True), saves=("result",), params=("dim",),
    vjp=(lambda g, n: _log_softmax_backward(g, n.result, n.dim),),
    first_order=(lambda gd, n, b: _log_softmax_grad_data(b, gd, n.saved_data("result"), n.dim),),
    exact=True)


def log_softmax(input: Tensor, dim: Any = None, dtype: Any = None) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``."""
    if _amp.on and dtype is None:  # autocast (arraygrad.amp.state)
        input, = _amp.cast("log_softmax", input)
    if dtype is not None:
        input = ew.to_dtype(input, dtype)
    d = _dim(input, dim, "log_softmax")
    backend = input._backend
    if input._data.dtype not in backend.floating_natives:  # (the check: only where it speaks)
        check_kernel_dtype("log_softmax", input, _softmax_kernel("log_softmax", input, d))
    x = to_float_data(input)
    if x.dtype in backend.reduced_floating_natives:
        data = _log_softmax_reduced(backend, x, d)
    else:
        data = log_softmax_data(backend, x, d)
    return LOG_SOFTMAX.record(data, input._backend, (input,), dim=d)


@array_kernel
def _log_softmax_reduced(backend: Backend, x: Any, d: Any) -> Any:
    """``log_softmax_data`` of float16/bfloat16 ``x`` as PyTorch's CPU kernel computes it: in
    float32, with the sum of exponentials and its log held in ``x``'s dtype, the result
    rounded once."""
    xp = backend.xp
    if x.ndim == 0 or x.size == 0:
        return xp.zeros_like(x)
    low, f32 = x.dtype, backend.native_dtype(_dt.float32)
    xf = xp.astype(x, f32)
    shifted = xf - xp.max(xf, axis=d, keepdims=True)
    total = xp.astype(xp.astype(xp.sum(xp.exp(shifted), axis=d, keepdims=True), low), f32)
    return xp.astype(shifted - xp.astype(xp.astype(xp.log(total), low), f32), low)


@array_kernel
def log_softmax_data(backend: Backend, x: Any, d: Any) -> Any:
    """``x - logsumexp(x)`` along axis ``d`` on arrays (floating ``x``)."""
    xp = backend.xp
    if x.ndim == 0 or x.size == 0:  # an empty input has nothing to normalise
        return xp.zeros_like(x)
    shifted = x - xp.max(x, axis=d, keepdims=True)
    shifted -= xp.log(xp.sum(xp.exp(shifted), axis=d, keepdims=True))  # fresh: in place
    return shifted
