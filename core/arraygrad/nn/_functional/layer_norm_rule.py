"""``F.layer_norm`` as one op with one node, PyTorch's ``NativeLayerNormBackward0`` (it was
eight recorded ops: mean, variance, the shift, ``+ eps``, ``rsqrt``, the scale, weight and
bias, each with its node and saved values).

The forward runs on arrays in the composite's operations and order (``(x - mean) *
rsqrt(var + eps) * weight + bias``, the variance as NumPy's ``var`` computes it, its sums the
namespace's); it saves the
input, weight, bias, mean and ``rstd`` (PyTorch's ``_saved_*``). The plain backward runs on
arrays from the saved mean and ``rstd``:

    gb = sum of g over the leading dims;  gw = sum of g * xhat;  h = g * weight
    gx = rstd * (h - mean(h) - xhat * mean(h * xhat))     (means over the normalised dims)

The recorded vjp (``create_graph``, reference mode, forward mode) computes the same formulas in
Tensor ops with the statistics recomputed from the input, so second derivatives see how the
mean and variance move with it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.ops import elementwise as ew
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode
    from arraygrad.tensor import Tensor

__all__ = ["LAYER_NORM", "layer_norm_one_node", "moments_data", "norm_first_order", "norm_grads"]


def moments_data(xp: Any, x: Any, dims: tuple[int, ...]) -> tuple[Any, ...]:
    """``(x - mean, mean, var)`` over ``dims`` (kept), the biased variance computed as
    NumPy's ``var`` computes it (the centred values squared, summed, over the count) from the
    centred values the output reuses, without ``var``'s Python layers and second centring;
    the sums are the namespace's (the NumPy backend's sum rows of trailing dims by BLAS).
    Layer norm's and batch norm's statistics."""
    count = math.prod([x.shape[d] for d in dims])
    mean = xp.mean(x, axis=dims, keepdims=True)
    centred = x - mean
    return centred, mean, xp.sum(centred * centred, axis=dims, keepdims=True) / count


def norm_grads(g: Any, x: Any, w: Any, mean: Any, rstd: Any, need: tuple[bool, ...],
               mean_over: Callable[[Any], Any],
               sum_leading: Callable[[Any], Any]) -> tuple[Any, ...]:
    """``(g_input, g_weight, g_bias)`` (None where not needed) on arrays or Tensors:
    ``mean_over`` averages over the normalised dims (kept), ``sum_leading`` sums over the
    others (the weight's shape); ``w`` broadcasts with ``x``. Layer norm's and batch norm's."""
    xhat = (x - mean) * rstd
    gb = sum_leading(g) if need[2] else None
    gw = sum_leading(g * xhat) if need[1] else None
    gx = None
    if need[0]:
        h = g if w is None else g * w
        gx = rstd * (h - mean_over(h) - xhat * mean_over(h * xhat))
    return gx, gw, gb


def _dims(n: RuleNode, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(normalised dims, leading dims)`` of an ``ndim``-dim input."""
    k = len(n.args["normalized_shape"])
    return tuple(range(ndim - k, ndim)), tuple(range(ndim - k))


def norm_first_order(gd: Any, n: RuleNode, backend: Backend, statistics: tuple[str, str],
                     layout: Callable[[Any, Any, Any], tuple[Any, ...]]
                     ) -> tuple[Any, ...] | None:
    """A normalisation's first-order backward on its saved arrays (layer norm's, batch
    norm's): ``statistics`` names the saved mean and rstd, ``layout(x, weight, xp)`` gives
    ``(normalised dims, the dims the weight's gradient sums over, the weight shaped to
    broadcast with x)``. None where the recorded vjp must run: a float16/bfloat16 gradient,
    arrays of two kinds (vmap's batched input beside a shared weight)."""
    if gd.dtype not in backend.wide_floating_natives:
        return None
    x, w = n.saved_data("input"), n.saved_data("weight")
    kind = type(gd)
    if type(x) is not kind or (w is not None and type(w) is not kind):
        return None
    mean, rstd = (n.saved_data(name) for name in statistics)
    xp = backend.xp
    dims, summed, w = layout(x, w, xp)
    return norm_grads(gd, x, w, mean, rstd, tuple(e is not None for e in n._next),
                      lambda a: xp.mean(a, axis=dims, keepdims=True),
                      lambda a: xp.sum(a, axis=summed) if summed else a)


def _first_order(gd: Any, n: RuleNode, backend: Backend) -> tuple[Any, ...] | None:
    return norm_first_order(gd, n, backend, ("mean", "rstd"),
                            lambda x, w, xp: (*_dims(n, x.ndim), w))


def _vjp(g: Tensor, n: RuleNode) -> tuple[Any, ...]:
    x = n.input
    dims, leading = _dims(n, x.ndim)
    mean = x.mean(dim=dims, keepdim=True)
    rstd = ew.rsqrt(x.var(dim=dims, unbiased=False, keepdim=True) + n.args["eps"])
    need = tuple(e is not None for e in n._next)
    return norm_grads(g, x, n.weight, mean, rstd, need,
                  lambda a: a.mean(dim=dims, keepdim=True),
                  lambda a: a.sum(dim=leading) if leading else a)


LAYER_NORM = defop("NativeLayerNormBackward0", jvp=VIA_VJP, inputs=("input", "weight", "bias"),
                   saves=("input", "weight", "bias", "mean", "rstd"),
                   params=("normalized_shape", "eps"), vjp=_vjp, first_order=_first_order)


def layer_norm_one_node(input: Tensor, dims: tuple[int, ...], weight: Tensor | None,
                        bias: Tensor | None, eps: float) -> Tensor:
    """``input`` normalised over ``dims`` (its trailing ones), scaled and shifted: one node.
    The caller has checked the shapes and dtypes (``normalization.layer_norm``)."""
    backend = input._backend
    params = [t for t in (weight, bias) if t is not None]
    if any(t._backend is not backend for t in params):
        # raises for distinct devices; inside vmap, the batching backend of the batched operand
        backend = same_backend("layer_norm", input, *params)
    xp = backend.xp
    x = input._data
    centred, mean, var = moments_data(xp, x, dims)
    rstd = 1 / xp.sqrt(var + eps)
    out = centred * rstd
    # (the namespace's functions, not operators: under vmap a shared weight is a plain array
    # beside a batched input, which only the batching namespace's functions mix)
    if weight is not None:
        out = xp.multiply(out, weight._data)
    if bias is not None:
        out = xp.add(out, bias._data)
    shape = tuple(x.shape[d] for d in dims)
    # (the statistics as tensors: PyTorch's ``_saved_mean``/``_saved_rstd`` are)
    return LAYER_NORM.record(out, backend, (input, weight, bias), normalized_shape=shape,
                             eps=eps, mean=wrap(mean, backend), rstd=wrap(rstd, backend))
