"""``scaled_dot_product_attention`` and ``multi_head_attention_forward``.

Both are compositions of differentiable Tensor ops (products, softmax, ``where``), so gradients
and double backward follow; they mirror PyTorch's CPU "math" implementation step by step, so
float results agree with PyTorch's to rounding. The private helpers (``_canonical_mask``,
``_none_or_dtype``, ``_mha_shape_check``, ``_in_projection*``) keep PyTorch's names: the
Transformer layers (and code written against ``torch.nn.functional``) call them.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

from arraygrad.amp import state as _amp
from arraygrad import dtypes as _dt
from arraygrad.attention_backends import check_viable
from arraygrad.nn._functional.attention_rule import (
    attention_one_node, attention_scale, math_scores, math_weights, takes_one_node,
)
from arraygrad.ops import linalg

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

_NEG_INF = float("-inf")


def _dtype_name(dtype: Any) -> str:
    """The C++ type name PyTorch's SDPA messages print (``float``, ``double``, ``long int``...)."""
    names = {"float32": "float", "float64": "double", "float16": "c10::Half",
             "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "bool": "bool"}
    short = str(dtype).rsplit(".", 1)[-1]
    return names.get(short, short)


def _check_sdpa_inputs(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None,
                       dropout_p: float, is_causal: bool) -> None:
    """PyTorch's checks on the inputs of ``scaled_dot_product_attention`` (all before any work)."""
    if query.dtype != key.dtype or query.dtype != value.dtype:
        raise RuntimeError(
            "Expected query, key, and value to have the same dtype, but got query.dtype: "
            f"{_dtype_name(query.dtype)} key.dtype: {_dtype_name(key.dtype)} and value.dtype: "
            f"{_dtype_name(value.dtype)} instead.")
    if query.device != key.device or query.device != value.device:
        raise RuntimeError(
            "Expected query, key, and value to have the same device type, but got query.device: "
            f"{query.device} key.device: {key.device} and value.device: {value.device} instead.")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: "
            f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if not query.is_floating_point():
        raise RuntimeError(
            "scaled_dot_product_attention: expected query, key and value of a floating dtype, "
            f"but got {query.dtype}")
    if attn_mask is not None:
        if attn_mask.dtype != _dt.bool and attn_mask.dtype != query.dtype:
            raise RuntimeError(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                f"attn_mask.dtype: {_dtype_name(attn_mask.dtype)} and  query.dtype: "
                f"{_dtype_name(query.dtype)} instead.")
        if is_causal:
            # PyTorch's math kernel (and its documentation) refuse the pair; see differences.md
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be "
                               "set when is_causal=True")
    if dropout_p > 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(
            "scaled_dot_product_attention: query and key must have the same embedding size, "
            f"but got query of shape {list(query.shape)} and key of shape {list(key.shape)}")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            "scaled_dot_product_attention: key and value must have the same sequence length, "
            f"but got key of shape {list(key.shape)} and value of shape {list(value.shape)}")


def _repeat_kv_heads(query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
    """Grouped-query attention: repeat each key/value head ``Hq / Hkv`` times along dim -3."""
    for t in (query, key, value):
        if t.ndim < 3:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-t.ndim}, {t.ndim - 1}], but got -3)")
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hk == 0 or hv == 0 or hq % hk != 0 or hq % hv != 0:
        raise RuntimeError(
            "Number of heads in key and value must divide the number of heads in query "
            f"(scaled_dot_product_attention with enable_gqa: query has {hq} heads, key {hk}, "
            f"value {hv})")
    if hk != hq:
        key = key.repeat_interleave(hq // hk, dim=-3)
    if hv != hq:
        value = value.repeat_interleave(hq // hv, dim=-3)
    return key, value


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Tensor | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims.

    ``query`` is (..., L, E), ``key`` (..., S, E), ``value`` (..., S, Ev); the leading dims
    broadcast. ``attn_mask`` broadcasts to (..., L, S): a bool mask marks with True the
    positions that take part, a float mask (of the query's dtype) is added to the scores.
    ``is_causal`` masks the upper triangle (query i sees keys ``j <= i``; with no
    ``attn_mask``). ``scale`` defaults to ``1/sqrt(E)``. ``dropout_p > 0`` drops attention
    weights (always: the functional has no training flag). ``enable_gqa`` repeats the key and
    value heads (dim -3) to the number of query heads. Rows with every key masked give 0
    (and zero gradients), as PyTorch's CPU kernels do.
    """
    if _amp.on:  # autocast (arraygrad.amp.state)
        query, key, value = _amp.cast("scaled_dot_product_attention", query, key, value)
    _check_sdpa_inputs(query, key, value, attn_mask, dropout_p, is_causal)
    check_viable()  # the backends nn.attention.sdpa_kernel left enabled
    if enable_gqa:
        key, value = _repeat_kv_heads(query, key, value)
    if takes_one_node(query, key, value, attn_mask, dropout_p):
        if attn_mask is not None:
            _check_mask_broadcast(tuple(query.shape[:-1]) + (key.shape[-2],),
                                  tuple(attn_mask.shape))
        return attention_one_node(query, key, value, attn_mask, is_causal, scale)
    scores = math_scores(query, key, attention_scale(query.shape[-1], scale))
    if attn_mask is not None:
        _check_mask_broadcast(tuple(scores.shape), tuple(attn_mask.shape))
    weights = math_weights(scores, attn_mask, is_causal)
    if dropout_p > 0.0:
        from arraygrad.nn._functional.linear import dropout

        weights = dropout(weights, dropout_p, True)
    return linalg.matmul(weights, value)


def _check_mask_broadcast(scores: tuple[int, ...], mask: tuple[int, ...]) -> None:
    """The mask is added in place in PyTorch: it must broadcast to the scores' shape."""
    def fail(extra: str = "") -> RuntimeError:
        return RuntimeError(
            f"scaled_dot_product_attention: attn_mask of shape {list(mask)} does not broadcast "
            f"to the attention scores' shape {list(scores)}{extra}")

    if len(mask) > len(scores):
        raise fail(" (more dims than the scores)")
    for s, m in zip(scores[::-1], mask[::-1]):
        if m != s and m != 1:
            raise fail()


# -- multi-head attention --------------------------------------------------------------------

def _none_or_dtype(input: Tensor | None) -> Any:
    """``input.dtype``, or None for None (PyTorch's helper of the same name)."""
    from arraygrad.tensor import Tensor

    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask: Tensor | None, mask_name: str, other_type: Any, other_name: str,
                    target_type: Any, check_other: bool = True) -> Tensor | None:
    """A bool or float mask as a float mask of ``target_type``: True (masked) becomes -inf.

    Warns, as PyTorch does, when ``mask``'s dtype differs from the other mask's.
    """
    if mask is None:
        return None
    is_float = mask.is_floating_point()
    if mask.dtype != _dt.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                      "Use same type for both instead.", stacklevel=2)
    if not is_float:
        from arraygrad.creation import zeros

        mask = zeros(tuple(mask.shape), dtype=target_type,
                     device=mask.device).masked_fill(mask, _NEG_INF)
    return mask


def _mha_shape_check(query: Tensor, key: Tensor, value: Tensor,
                     key_padding_mask: Tensor | None, attn_mask: Tensor | None,
                     num_heads: int) -> bool:
    """Check the ranks of the inputs and masks; True for batched (3-D) input."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError(
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError(
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                f" but found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                f" but found {key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError(
                "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                f" but found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError(
                    "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                    f" but found {attn_mask.dim()}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.dim() == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(
                    f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError("query should be unbatched 2D or batched 3D tensor but received "
                         f"{query.dim()}-D query tensor")


def _project(x: Tensor, w: Tensor, b: Tensor | None) -> Tensor:
    """``linear`` on the rows of ``x`` as one 2-D product (NumPy's N-D matmul with a
    transposed weight skips BLAS and is many times slower), reshaped back."""
    from arraygrad.nn._functional.linear import linear

    if x.ndim == 2:
        return linear(x, w, b)
    return linear(x.reshape(-1, x.shape[-1]), w, b).reshape(*x.shape[:-1], w.shape[0])


def _in_projection_packed(q: Tensor, k: Tensor, v: Tensor, w: Tensor,
                          b: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Project q, k, v with the packed (3E, E) weight: one product when they are one tensor."""
    e = q.size(-1)
    if k is v:
        if q is k:
            proj = _project(q, w, b).unflatten(-1, (3, e))
            return proj[..., 0, :], proj[..., 1, :], proj[..., 2, :]
        w_q, w_kv = w.split([e, e * 2])
        b_q, b_kv = (None, None) if b is None else b.split([e, e * 2])
        kv = _project(k, w_kv, b_kv).unflatten(-1, (2, e))
        return _project(q, w_q, b_q), kv[..., 0, :], kv[..., 1, :]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return _project(q, w_q, b_q), _project(k, w_k, b_k), _project(v, w_v, b_v)


def _packed_self_heads(x: Tensor, w: Tensor, b: Tensor | None,
                       num_heads: int) -> tuple[Tensor, Tensor, Tensor]:
    """Self-attention's q, k and v, each (N, heads, L, head_dim), from the (L, N, E) input and
    the packed (3E, E) weight: one product, one reshape, one permute, one unbind (the general
    path's three selects, three reshapes, three transposes and three reshapes more move the
    same values)."""
    from arraygrad.nn._functional.linear import linear

    tgt_len, bsz, e = x.shape
    proj = linear(x.reshape(-1, e), w, b).reshape(tgt_len, bsz, 3, num_heads, e // num_heads)
    q, k, v = proj.permute(2, 1, 3, 0, 4).unbind(0)
    return q, k, v


def _heads_appended(q: Tensor, k: Tensor, v: Tensor, bsz: int, num_heads: int,
                    bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool,
                    static_k: Tensor | None, static_v: Tensor | None,
                    attn_mask: Tensor | None, key_padding_mask: Tensor | None) -> tuple[Any, ...]:
    """The general path's heads, (N*heads, len, head_dim), after the keys and values got
    ``bias_k``/``bias_v`` and a zero position appended (and the masks a column each), or
    were given whole (``static_k``/``static_v``): ``(q, k, v, attn_mask, key_padding_mask)``."""
    import arraygrad as ag

    head_dim = q.shape[-1] // num_heads
    if bias_k is not None and bias_v is not None:
        k = ag.cat([k, bias_k.repeat(1, bsz, 1)])
        v = ag.cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask = _append_column(attn_mask)
        key_padding_mask = _append_column(key_padding_mask)
    q = q.reshape(q.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    k = (k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
         if static_k is None else static_k)
    v = (v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
         if static_v is None else static_v)
    if add_zero_attn:
        zeros_shape = (bsz * num_heads, 1, head_dim)
        k = ag.cat([k, ag.zeros(zeros_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = ag.cat([v, ag.zeros(zeros_shape, dtype=v.dtype, device=v.device)], dim=1)
        attn_mask = _append_column(attn_mask)
        key_padding_mask = _append_column(key_padding_mask)
    return q, k, v, attn_mask, key_padding_mask


def _in_projection(q: Tensor, k: Tensor, v: Tensor, w_q: Tensor, w_k: Tensor, w_v: Tensor,
                   b_q: Tensor | None = None, b_k: Tensor | None = None,
                   b_v: Tensor | None = None) -> tuple[Tensor, Tensor, Tensor]:
    """Project q, k, v with separate weights (key/value may have other embedding sizes)."""
    eq, ek, ev = q.size(-1), k.size(-1), v.size(-1)
    for name, w, shape in (("query", w_q, (eq, eq)), ("key", w_k, (eq, ek)),
                           ("value", w_v, (eq, ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {w.shape}")
    for name, bias in (("query", b_q), ("key", b_k), ("value", b_v)):
        if bias is not None and tuple(bias.shape) != (eq,):
            raise AssertionError(f"expecting {name} bias shape of {(eq,)}, but got {bias.shape}")
    return _project(q, w_q, b_q), _project(k, w_k, b_k), _project(v, w_v, b_v)


def _prepare_attn_mask(attn_mask: Tensor, tgt_len: int, src_len: int, bsz: int,
                       num_heads: int) -> Tensor:
    """A 2-D (L, S) or 3-D (N*heads, L, S) mask as 3-D, with PyTorch's shape errors."""
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        expected = (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != expected:
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {expected}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _append_column(mask: Tensor | None) -> Tensor | None:
    """One more key column (for bias_k / the zero attention), not masked."""
    if mask is None:
        return None
    from arraygrad.nn._functional.padding import pad

    return pad(mask, (0, 1))


def multi_head_attention_forward(
        query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
        in_proj_weight: Tensor | None, in_proj_bias: Tensor | None, bias_k: Tensor | None,
        bias_v: Tensor | None, add_zero_attn: bool, dropout_p: float, out_proj_weight: Tensor,
        out_proj_bias: Tensor | None, training: bool = True,
        key_padding_mask: Tensor | None = None, need_weights: bool = True,
        attn_mask: Tensor | None = None, use_separate_proj_weight: bool = False,
        q_proj_weight: Tensor | None = None, k_proj_weight: Tensor | None = None,
        v_proj_weight: Tensor | None = None, static_k: Tensor | None = None,
        static_v: Tensor | None = None, average_attn_weights: bool = True,
        is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
    """The forward of ``nn.MultiheadAttention`` as a function (PyTorch's arguments).

    ``query`` is (L, N, E) or unbatched (L, E); ``key``/``value`` (S, N, E*). Returns the
    output (L, N, E) and, with ``need_weights``, the attention weights (N, L, S) averaged over
    heads or (N, heads, L, S) per head (else None). ``key_padding_mask`` (N, S) and
    ``attn_mask`` (L, S) or (N*heads, L, S): bool (True = masked) or float (added).
    """
    import arraygrad as ag
    from arraygrad.nn._functional.linear import dropout, linear

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        # run as a batch of one, squeezed again at the end
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError(
            "Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
            "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        # the hint alone drives the attention (PyTorch drops the mask here)
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False  # the merged mask is no longer causal
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                                 f"value's {value.shape[:2]}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")
    if attn_mask is not None:
        attn_mask = _prepare_attn_mask(attn_mask, tgt_len, src_len, bsz, num_heads)
    for name, static in (("static_k", static_k), ("static_v", static_v)):
        if static is not None:
            if static.size(0) != bsz * num_heads:
                raise AssertionError(f"expecting {name}.size(0) of {bsz * num_heads}, but got "
                                     f"{static.size(0)}")
            if static.size(2) != head_dim:
                raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got "
                                     f"{static.size(2)}")

    # through SDPA with nothing appended to the keys: the heads go straight to (N, heads, L,
    # head_dim), self-attention's from one reshape of the packed projection
    direct = (bias_k is None and static_k is None and static_v is None and not add_zero_attn
              and not need_weights)
    if direct and not use_separate_proj_weight and in_proj_weight is not None \
            and query is key and key is value:
        q, k, v = _packed_self_heads(query, in_proj_weight, in_proj_bias, num_heads)
    else:
        # in-projection
        if not use_separate_proj_weight:
            if in_proj_weight is None:
                raise AssertionError(
                    "use_separate_proj_weight is False but in_proj_weight is None")
            q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
        else:
            for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
                if w is None:
                    raise AssertionError(
                        f"use_separate_proj_weight is True but {name}_proj_weight is None")
            assert q_proj_weight is not None and k_proj_weight is not None
            assert v_proj_weight is not None
            b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
            q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight,
                                     v_proj_weight, b_q, b_k, b_v)

        if direct:  # (len, N, E) -> (N, heads, len, head_dim)
            q, k, v = (t.reshape(t.shape[0], bsz, num_heads, head_dim).permute(1, 2, 0, 3)
                       for t in (q, k, v))
        else:
            q, k, v, attn_mask, key_padding_mask = _heads_appended(
                q, k, v, bsz, num_heads, bias_k, bias_v, add_zero_attn, static_k, static_v,
                attn_mask, key_padding_mask)
    src_len = k.size(-2)

    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got "
                                 f"{key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.reshape(bsz, 1, 1, src_len)
                            .expand(-1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask
    if not training:
        dropout_p = 0.0

    if need_weights:
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        q_scaled = q * math.sqrt(1.0 / float(q.shape[-1]))
        scores = linalg.matmul(q_scaled, k.transpose(-2, -1))
        if attn_mask is not None:
            scores = attn_mask + scores  # PyTorch's baddbmm(attn_mask, q, k^T)
        weights = scores.softmax(-1)  # a fully masked row is NaN here, as in PyTorch
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = linalg.matmul(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights
    if attn_mask is not None:
        if attn_mask.size(0) == 1 and attn_mask.dim() == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    if q.ndim == 3:  # (N*heads, L, head_dim), not yet per batch and head
        q = q.reshape(bsz, num_heads, tgt_len, head_dim)
        k = k.reshape(bsz, num_heads, src_len, head_dim)
        v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, -1)
    if not is_batched:
        out = out.squeeze(1)
    return out, None
