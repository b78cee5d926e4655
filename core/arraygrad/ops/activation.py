"""``softmax`` and ``log_softmax`` along a dimension, computed without overflow."""

from __future__ import annotations

import warnings

from arraygrad.ops._record import OUTPUT, backward_node, record, to_float_data
from arraygrad.ops.activation_backward import activation_node
from arraygrad.ops import elementwise as ew
from arraygrad.tensor import _wrap_dim

__all__ = ["softmax", "log_softmax"]


def _dim(input, dim, op):
    if dim is None:
        warnings.warn(f"Implicit dimension choice for {op} has been deprecated. Change the call "
                      "to include dim=X as an argument.", UserWarning, stacklevel=3)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return _wrap_dim(dim, input.ndim, op)


def _softmax_backward(node, g):
    (y,) = node.saved_tensors
    d = node.args
    return y * (g - (g * y).sum(d, keepdim=True))


SoftmaxBackward0 = backward_node("SoftmaxBackward0", _softmax_backward)


def softmax(input, dim=None, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    if dtype is not None:
        input = ew.to_dtype(input, dtype)
    d = _dim(input, dim, "softmax")
    xp = input._backend.xp
    x = to_float_data(input)
    if x.ndim == 0:
        data = xp.ones_like(x)
    else:
        e = xp.exp(x - xp.max(x, axis=d, keepdims=True))
        data = e / xp.sum(e, axis=d, keepdims=True)
    return record(data, input._backend, SoftmaxBackward0, (input,), saved=(OUTPUT,), args=d)


def _log_softmax_backward(g, y, d):
    """``g - exp(y) * sum(g)`` along ``d``, in Tensor ops (recorded under create_graph)."""
    return g - ew.exp(y) * g.sum(d, keepdim=True)


def _log_softmax_grad_data(backend, gd, yd, d):
    """``_log_softmax_backward`` on arrays (first order)."""
    xp = backend.xp
    if gd.ndim == 0:
        return gd - xp.exp(yd) * gd
    scaled = xp.exp(yd)
    scaled *= xp.sum(gd, axis=d, keepdims=True)  # a fresh array: in place
    return gd - scaled


LogSoftmaxBackward0 = activation_node("LogSoftmaxBackward0", _log_softmax_grad_data,
                                      _log_softmax_backward)


def log_softmax(input, dim=None, dtype=None):
    """``x - logsumexp(x)`` along ``dim``."""
    if dtype is not None:
        input = ew.to_dtype(input, dtype)
    d = _dim(input, dim, "log_softmax")
    xp = input._backend.xp
    x = to_float_data(input)
    if x.ndim == 0:
        data = xp.zeros_like(x)
    else:
        shifted = x - xp.max(x, axis=d, keepdims=True)
        shifted -= xp.log(xp.sum(xp.exp(shifted), axis=d, keepdims=True))  # fresh: in place
        data = shifted
    return record(data, input._backend, LogSoftmaxBackward0, (input,), saved=(OUTPUT,), args=d)
