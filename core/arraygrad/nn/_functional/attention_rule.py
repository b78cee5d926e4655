"""``F.scaled_dot_product_attention`` as one op with one node, PyTorch's CPU flash kernel's
``ScaledDotProductFlashAttentionForCpuBackward0`` (the composite records nine ops: the two
scalings, a transpose, the scores' product, the mask, softmax between two ``where``s, the
output's product, and makes five more unrecorded arrays for the fully masked rows).

It runs where PyTorch's CPU build picks that kernel: 4-D query, key and value of one batch,
one head count and one embedding size, no dropout, no mask needing a gradient, the flash
backend enabled; and here for float32/float64 dense arrays of one kind,
outside an ONNX export. Elsewhere the composite runs (``attention.scaled_dot_product_attention``).

Forward, on arrays: ``scores = (q * scale) @ k^T`` plus the mask (a bool or the causal mask
as 0 and ``-inf``, as PyTorch adds it), a softmax whose fully masked rows come out 0, ``out = P @
v``. It saves the inputs, the output and the attention weights ``P`` (PyTorch saves the
rows' logsumexp and recomputes ``P``; saving it spares the backward a product and an
``exp``). The plain backward on arrays, with ``g`` the output's gradient:

    dv = P^T g;   dP = g v^T;   dS = P * (dP - rowsum(g * out));   dq = dS k * scale;
    dk = dS^T q * scale

(``rowsum(g * out)`` is ``rowsum(dP * P)``: ``out = P v``). The recorded vjp (``create_graph``,
reference mode, forward mode) is the same in Tensor ops with ``P`` recomputed from the
query and key, so second derivatives see how ``P`` moves with them.
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any, Callable

from arraygrad import attention_backends as _sdp
from arraygrad import dtypes as _dt
from arraygrad.ops import elementwise as ew, linalg
from arraygrad.ops.families.shaping import triangle_keep
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["SDPA", "attention_one_node", "attention_scale", "math_scores", "math_weights",
           "takes_one_node"]

_NEG_INF = float("-inf")


def attention_scale(query_dim: int, scale: float | None) -> float:
    """The scores' factor: ``scale``, by default ``1 / sqrt(E)``."""
    return math.sqrt(1.0 / query_dim) if scale is None else float(scale)


def _flash_enabled() -> bool:
    """Whether the flash backend is enabled: PyTorch's CPU dispatch tries it first whatever
    the priority order ``sdpa_kernel(..., set_priority=True)`` gives (that order is CUDA's)."""
    return _sdp.SDPBackend.FLASH_ATTENTION in _sdp.enabled()


def _exporting_onnx() -> bool:
    """Whether an ONNX export is recording (without importing the exporter, which brings
    the compiler: no export has begun while it is not imported)."""
    modes = sys.modules.get("arraygrad.onnx.modes")
    return modes is not None and modes.is_in_onnx_export()


def takes_one_node(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                   dropout_p: float) -> bool:
    """Whether ``attention_one_node`` computes this call (see the module docstring); the
    caller has run PyTorch's input checks."""
    if dropout_p > 0.0 or query.ndim != 4 or key.ndim != 4 or value.ndim != 4:
        return False
    qs, ks, vs = query.shape, key.shape, value.shape
    if qs[:2] != ks[:2] or qs[:2] != vs[:2] or vs[-1] != qs[-1] or 0 in qs or 0 in ks:
        return False
    backend = query._backend
    data = query._data
    if data.dtype not in backend.wide_floating_natives or query.is_sparse:
        return False
    kind = type(data)
    for t in (key, value, attn_mask):
        if t is not None and (t._backend is not backend or t.is_sparse
                              or type(t._data) is not kind):
            return False
    if attn_mask is not None and (attn_mask.requires_grad or attn_mask.ndim > 4):
        return False
    # an ONNX export writes the composite's operators (``Softmax`` among them), not the
    # fused forward's array operations one by one
    return _flash_enabled() and not _exporting_onnx()


def _masked_scores(xp: Any, scores: Any, mask: Any, is_causal: bool) -> Any:
    """``scores`` plus the mask as PyTorch's CPU kernels add it: a float mask as it is, a bool
    (or the causal) mask as 0 where True and ``-inf`` where False. The bool mask is turned
    into floats at its own shape, usually (L, S), before it broadcasts over the batch and
    heads (and a ``where`` over the scores on a random mask is NumPy's slow branchy loop)."""
    if is_causal:
        mask = triangle_keep(xp, scores.shape[-2], scores.shape[-1], 0, True)
    if mask is None:
        return scores
    if mask.dtype == xp.bool:
        mask = xp.where(mask, xp.zeros((), dtype=scores.dtype),
                        xp.asarray(_NEG_INF, dtype=scores.dtype))
    return scores + mask


def _weights_data(xp: Any, scores: Any) -> Any:
    """Softmax over the last axis; rows that are all ``-inf`` give 0 (PyTorch's CPU kernels),
    with no NaN made on the way."""
    top = xp.max(scores, axis=-1, keepdims=True)
    zero = xp.zeros((), dtype=scores.dtype)
    e = xp.exp(scores - xp.where(top == _NEG_INF, zero, top))
    total = xp.sum(e, axis=-1, keepdims=True)
    return e / xp.where(total == zero, xp.ones((), dtype=scores.dtype), total)


def _grads(g: Any, q: Any, k: Any, v: Any, p: Any, f: float, need: list[bool],
           matmul: Callable[[Any, Any], Any], mt: Callable[[Any], Any],
           row_term: Callable[[Any], Any]) -> tuple[Any, ...]:
    """``(dq, dk, dv)`` (None where not needed) on arrays or Tensors: ``matmul`` and ``mt``
    (the last two dims swapped) the library's, ``row_term(dP)`` the rows' ``sum(dP * P)``."""
    dv = matmul(mt(p), g) if need[2] else None
    dq = dk = None
    if need[0] or need[1]:
        dp = matmul(g, mt(v))
        ds = p * (dp - row_term(dp))
        if need[0]:
            dq = matmul(ds, k) * f
        if need[1]:
            dk = matmul(mt(ds), q) * f
    return dq, dk, dv


def _first_order(gd: Any, n: RuleNode, backend: Backend) -> tuple[Any, ...] | None:
    p = n.saved_data("weights")
    if type(gd) is not type(p):  # vmap's batched gradient: the recorded vjp handles it
        return None
    xp = backend.xp
    q = n.saved_data("query")
    # the rows' sum(dP * P) is sum(g * out) (out = P v): a product of the output's size
    return _grads(gd, q, n.saved_data("key"), n.saved_data("value"), p,
                  attention_scale(q.shape[-1], n.args["scale"]),
                  [e is not None for e in n._next], xp.matmul, xp.matrix_transpose,
                  lambda dp: xp.sum(gd * n.saved_data("result"), axis=-1, keepdims=True))


def _bool_to_additive(mask: Tensor, dtype: Any) -> Tensor:
    """A bool mask (True = take part) as the float mask PyTorch adds: 0 kept, -inf masked."""
    from arraygrad.creation import zeros

    zero = zeros(tuple(mask.shape), dtype=dtype, device=mask.device)
    return zero.masked_fill(mask.logical_not(), _NEG_INF)


def _safe_softmax(x: Tensor, dim: int) -> Tensor:
    """Softmax whose rows that are all ``-inf`` come out 0 (PyTorch's ``_safe_softmax``), in
    Tensor ops. Those rows are fed zeros first, so no NaN is made in forward and none reaches
    the gradients (PyTorch differentiates them to 0 too)."""
    masked_rows = (x == _NEG_INF).all(dim=dim, keepdim=True)
    safe = ew.where(masked_rows, ew.full_like_scalar(x, 0.0), x)
    return ew.where(masked_rows, ew.full_like_scalar(x, 0.0), safe.softmax(dim))


def math_scores(query: Tensor, key: Tensor, factor: float) -> Tensor:
    """``query @ key^T * factor`` in Tensor ops as PyTorch's math kernel computes it:
    ``sqrt(factor)`` on each side keeps the product in range."""
    if factor >= 0:
        root = math.sqrt(factor)
        return linalg.matmul(query * root, (key * root).transpose(-2, -1))
    return linalg.matmul(query * factor, key.transpose(-2, -1))


def math_weights(scores: Tensor, mask: Tensor | None, is_causal: bool) -> Tensor:
    """The attention weights from the scores in Tensor ops (the math kernel's; the recorded
    vjp's, differentiable in the scores): the mask added (a bool or the causal mask as 0 and
    ``-inf``), then ``_safe_softmax``."""
    if is_causal:
        from arraygrad.creation import ones

        mask = ones(scores.shape[-2], scores.shape[-1], dtype=_dt.bool,
                    device=scores.device).tril()
    if mask is not None:
        scores = scores + (_bool_to_additive(mask, scores.dtype) if mask.dtype == _dt.bool
                           else mask)
    return _safe_softmax(scores, -1)


def _vjp(g: Tensor, n: RuleNode) -> tuple[Any, ...]:
    q, k = n.query, n.key
    f = attention_scale(q.shape[-1], n.args["scale"])
    p = math_weights(math_scores(q, k, f), n.attn_mask, n.args["is_causal"])
    return _grads(g, q, k, n.value, p, f, [e is not None for e in n._next], linalg.matmul,
                  lambda t: t.transpose(-2, -1), lambda dp: (dp * p).sum(-1, keepdim=True))


SDPA = defop("ScaledDotProductFlashAttentionForCpuBackward0", jvp=VIA_VJP,
             inputs=("query", "key", "value"),
             saves=("query", "key", "value", "attn_mask", "result", "weights"),
             params={"scale": None, "is_causal": False, "dropout_p": 0.0},
             vjp=_vjp, first_order=_first_order)


def attention_one_node(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                       is_causal: bool, scale: float | None) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value``: one node. The caller has checked
    the inputs and that ``takes_one_node``."""
    backend = query._backend
    xp = backend.xp
    f = attention_scale(query.shape[-1], scale)
    q = query._data
    scores = xp.matmul(q * f, xp.matrix_transpose(key._data))
    scores = _masked_scores(xp, scores, None if attn_mask is None else attn_mask._data,
                            is_causal)
    p = _weights_data(xp, scores)
    out = xp.matmul(p, value._data)
    return SDPA.record(out, backend, (query, key, value), scale=scale, is_causal=is_causal,
                       dropout_p=0.0, attn_mask=attn_mask, weights=wrap(p, backend))
