"""Attention: ``scaled_dot_product_attention`` (masks, causal, scale, GQA, broadcasting, fully
masked rows) and ``multi_head_attention_forward`` (packed and separate projections)."""

import arraygrad.nn.functional as F
from arraygrad.conformance.cases._make import case

_INF = float("-inf")
# (3, 5): True takes part; row 1 keeps one key only
_BOOL_MASK = [[True, False, True, True, False],
              [False, False, True, False, False],
              [True, True, True, True, True]]
# row 2 masks every key: its output (and every gradient through it) is 0
_EMPTY_ROW_MASK = [[True, True, False, True, True],
                   [False, True, True, False, True],
                   [False, False, False, False, False]]
_NEG_INF_MASK = [[0.0, _INF, 0.5, 0.0, _INF],
                 [_INF, _INF, _INF, _INF, _INF],
                 [1.0, 0.0, -2.0, _INF, 0.0]]
_PADDING = [[False, False, True], [False, False, False]]


def _sdpa(**kw):  # type: ignore[no-untyped-def]
    return lambda q, k, v: F.scaled_dot_product_attention(q, k, v, **kw)


def _mha_packed(q, w, b, wo, bo, pad):  # type: ignore[no-untyped-def]
    # self-attention (one tensor for query, key and value): the packed single-product path
    return F.multi_head_attention_forward(q, q, q, 4, 2, w, b, None, None, False, 0.0, wo, bo,
                                          training=False, key_padding_mask=pad)


def _mha_packed_sdpa(q, w, b, wo, bo, mask):  # type: ignore[no-untyped-def]
    # self-attention without the weights: the heads from one reshape of the packed product,
    # then scaled_dot_product_attention's one node
    out, _ = F.multi_head_attention_forward(q, q, q, 4, 2, w, b, None, None, False, 0.0, wo,
                                            bo, training=False, attn_mask=mask,
                                            need_weights=False)
    return out


def _mha_separate(q, k, v, wq, wk, wv, b, wo, bo):  # type: ignore[no-untyped-def]
    out, weights = F.multi_head_attention_forward(
        q, k, v, 4, 2, None, b, None, None, False, 0.0, wo, bo, training=False,
        use_separate_proj_weight=True, q_proj_weight=wq, k_proj_weight=wk, v_proj_weight=wv,
        average_attn_weights=False)
    return out, weights


def _mha_no_weights(q, k, v, w, b, wo, bo, bk, bv):  # type: ignore[no-untyped-def]
    out, _ = F.multi_head_attention_forward(q, k, v, 4, 2, w, b, bk, bv, True, 0.0, wo, bo,
                                            training=False, need_weights=False)
    return out


CASES = (
    case("scaled_dot_product_attention", "basic", _sdpa(), [(2, 3, 4), (2, 5, 4), (2, 5, 3)]),
    case("scaled_dot_product_attention", "heads", _sdpa(),
         [(1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 2)]),
    case("scaled_dot_product_attention", "unbatched", _sdpa(), [(3, 2), (4, 2), (4, 3)]),
    case("scaled_dot_product_attention", "broadcast_batch", _sdpa(),
         [(2, 1, 3, 4), (1, 2, 5, 4), (1, 2, 5, 3)]),
    case("scaled_dot_product_attention", "bool_mask",
         lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3)], consts=[_BOOL_MASK]),
    case("scaled_dot_product_attention", "float_mask",
         lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3), (2, 3, 5)]),
    case("scaled_dot_product_attention", "masked_row",
         lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3)], consts=[_EMPTY_ROW_MASK]),
    case("scaled_dot_product_attention", "neg_inf_float_mask",
         lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m.to(q.dtype)),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3)], consts=[_NEG_INF_MASK]),
    case("scaled_dot_product_attention", "causal", _sdpa(is_causal=True),
         [(2, 4, 3), (2, 3, 3), (2, 3, 2)]),
    case("scaled_dot_product_attention", "scale", _sdpa(scale=0.7),
         [(2, 3, 4), (2, 5, 4), (2, 5, 3)]),
    case("scaled_dot_product_attention", "gqa", _sdpa(enable_gqa=True),
         [(1, 4, 2, 3), (1, 2, 3, 3), (1, 1, 3, 2)]),
    # 4-D, one batch and head count, one embedding size, no dropout: PyTorch's CPU flash
    # kernel, one node here
    case("scaled_dot_product_attention", "flash_heads", _sdpa(),
         [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    case("scaled_dot_product_attention", "flash_causal_scale", _sdpa(is_causal=True, scale=-0.6),
         [(1, 2, 4, 3), (1, 2, 3, 3), (1, 2, 3, 3)]),
    case("scaled_dot_product_attention", "flash_masked_row",
         lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
         [(1, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 4)], consts=[_EMPTY_ROW_MASK]),
    case("multi_head_attention_forward", "packed_self_padding", _mha_packed,
         [(3, 2, 4), (12, 4), (12,), (4, 4), (4,)], consts=[_PADDING]),
    case("multi_head_attention_forward", "packed_self_sdpa", _mha_packed_sdpa,
         [(3, 2, 4), (12, 4), (12,), (4, 4), (4,), (3, 3)]),
    case("multi_head_attention_forward", "separate_kdim_vdim", _mha_separate,
         [(3, 2, 4), (5, 2, 3), (5, 2, 2), (4, 4), (4, 3), (4, 2), (12,), (4, 4), (4,)]),
    case("multi_head_attention_forward", "bias_kv_zero_attn_no_weights", _mha_no_weights,
         [(3, 2, 4), (5, 2, 4), (5, 2, 4), (12, 4), (12,), (4, 4), (4,), (1, 1, 4),
          (1, 1, 4)]),
)
