"""``F.batch_norm`` in training as one op with one node, PyTorch's ``NativeBatchNormBackward0``
(it was eleven recorded ops with the affine part, each with its node and saved values, and
the running statistics' update another six Tensor ops: 154 us a call on a (25, 16, 5, 5)
batch, PyTorch's 27).

The forward runs on arrays in the composite's operations and order (``(x - mean) *
rsqrt(var + eps) * weight + bias`` over the batch and spatial dims, the variance as NumPy's
``var`` computes it: ``layer_norm_rule.moments_data``), so its values are unchanged bit for bit
on NumPy; it saves the input, the weight and the batch's mean and ``rstd`` (PyTorch's
``_saved_result1``, ``_saved_result2``). The running statistics move as the composite moved
them (the same operations on the arrays, in place where the arrays are writable). The plain
backward is layer norm's formulas with the roles of the dims swapped
(``layer_norm_rule.norm_grads``): means over the batch and spatial dims, the weight's and
bias's sums over them too.

The recorded vjp (``create_graph``, reference mode, forward mode) computes the same formulas in
Tensor ops with the statistics recomputed from the input, so second derivatives see how the
mean and variance move with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.ops.fast import arrays_writable
from arraygrad.ops.fast_optim import writable_arrays
from arraygrad.ops.inplace import before_write
from arraygrad.nn._functional.layer_norm_rule import moments_data, norm_first_order, norm_grads
from arraygrad.ops import elementwise as ew
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["BATCH_NORM", "batch_norm_one_node", "takes_one_node"]


def _dims(ndim: int) -> tuple[int, ...]:
    """The normalised dims of an ``ndim``-dim input: all but the channels' (dim 1)."""
    return (0,) + tuple(range(2, ndim))


def _channel(a: Any, ndim: int, reshape: Any) -> Any:
    """A per-channel vector ``a`` shaped to broadcast with an ``ndim``-dim input."""
    return None if a is None else reshape(a, (1, -1) + (1,) * (ndim - 2))


def _first_order(gd: Any, n: RuleNode, backend: Backend) -> tuple[Any, ...] | None:
    def layout(x: Any, w: Any, xp: Any) -> tuple[Any, ...]:
        dims = _dims(x.ndim)  # normalised and summed over alike: all but the channels
        return dims, dims, _channel(w, x.ndim, xp.reshape)

    return norm_first_order(gd, n, backend, ("result1", "result2"), layout)


def _vjp(g: Tensor, n: RuleNode) -> tuple[Any, ...]:
    x = n.input
    dims = _dims(x.ndim)
    mean = x.mean(dim=dims, keepdim=True)
    rstd = ew.rsqrt(x.var(dim=dims, unbiased=False, keepdim=True) + n.args["eps"])
    need = tuple(e is not None for e in n._next)
    w = _channel(n.weight, x.ndim, lambda a, shape: a.reshape(shape))
    return norm_grads(g, x, w, mean, rstd, need,
                      lambda a: a.mean(dim=dims, keepdim=True),
                      lambda a: a.sum(dim=dims))


BATCH_NORM = defop("NativeBatchNormBackward0", jvp=VIA_VJP, inputs=("input", "weight", "bias"),
                   saves=("input", "weight", "result1", "result2"), params=("eps",), vjp=_vjp,
                   first_order=_first_order)


def takes_one_node(input: Tensor, weight: Tensor | None, bias: Tensor | None) -> bool:
    """Whether ``batch_norm_one_node`` computes what the composite does: dense float32/float64
    tensors of one backend holding one kind of array (float16/bfloat16, complex, a vmap
    level's batched input beside a plain weight, two devices keep the composite, which
    computes or refuses them as it always has)."""
    backend = input._backend
    data = input._data
    if data.dtype not in backend.wide_floating_natives:
        return False
    kind = type(data)
    for t in (weight, bias):
        if t is not None and (not isinstance(t, Tensor) or t._backend is not backend
                              or t.is_sparse or type(t._data) is not kind
                              or t._data.dtype != data.dtype):
            return False
    return not input.is_sparse


def _update_running(running: Tensor | None, batch: Any, momentum: float, backend: Backend,
                    scale: float = 1.0) -> None:
    """``running`` moved towards the per-channel ``batch`` statistic (times ``scale``: the
    variance made unbiased) as the composite moves it, outside the graph."""
    if running is None:
        return
    with no_grad():
        if arrays_writable() and running._backend is backend and \
                writable_arrays((running,), 1, batch.shape) and running._data.dtype == batch.dtype:
            # in place, the same two products and sum (``r * (1 - m)`` rounded, then ``+``):
            # its values bit for bit, one version bump as ``copy_``'s
            before_write(running)
            value = batch * scale if scale != 1.0 else batch
            data = running._data
            data *= 1 - momentum
            data += value * momentum
            running._bump_version()
            return
        # another dtype or device, an immutable backend, a compile recording: Tensor ops
        value = wrap(batch, backend)
        if scale != 1.0:
            value = value * scale
        running.copy_(running * (1 - momentum) + value * momentum)


def batch_norm_one_node(input: Tensor, running_mean: Tensor | None,
                        running_var: Tensor | None, weight: Tensor | None,
                        bias: Tensor | None, momentum: float, eps: float) -> Tensor:
    """``input`` normalised per channel over the batch (training), scaled and shifted: one
    node; ``running_*`` (when given) updated. The caller has checked the shapes and that
    ``takes_one_node``."""
    backend = input._backend
    xp = backend.xp
    x = input._data
    centred, mean, var = moments_data(xp, x, _dims(x.ndim))
    rstd = 1 / xp.sqrt(var + eps)
    out = centred * rstd
    if weight is not None:
        out = out * _channel(weight._data, x.ndim, xp.reshape)
    if bias is not None:
        out = out + _channel(bias._data, x.ndim, xp.reshape)
    count = x.size // x.shape[1]
    _update_running(running_mean, xp.reshape(mean, (-1,)), momentum, backend)
    _update_running(running_var, xp.reshape(var, (-1,)), momentum, backend,
                    count / (count - 1))
    return BATCH_NORM.record(out, backend, (input, weight, bias), eps=eps,
                             result1=wrap(mean, backend), result2=wrap(rstd, backend))
