"""F.scaled_dot_product_attention: values against a NumPy reference written from the formula,
masks (bool/float, broadcast), causal, scale, GQA, dropout, fully masked rows, errors,
gradcheck/gradgradcheck, and PyTorch where installed."""

import math

import numpy as np
import pytest
from nn_helpers import arr, t64

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

rng = np.random.default_rng(2024)


def randn(*shape, requires_grad=False):
    return t64(rng.standard_normal(shape), requires_grad=requires_grad)


def reference(q, k, v, mask=None, causal=False, scale=None, gqa=False):
    """softmax(q k^T * scale + mask) v in NumPy; rows with no key allowed give 0."""
    q, k, v = arr(q), arr(k), arr(v)
    if gqa:
        k = np.repeat(k, q.shape[-3] // k.shape[-3], axis=-3)
        v = np.repeat(v, q.shape[-3] // v.shape[-3], axis=-3)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = q @ np.swapaxes(k, -1, -2) * scale
    length, source = scores.shape[-2:]
    add = np.zeros((length, source))
    if causal:
        add = np.where(np.tril(np.ones((length, source), bool)), 0.0, -np.inf)
    if mask is not None:
        m = np.asarray(mask.tolist())
        add = np.where(m, 0.0, -np.inf) if m.dtype == bool else m
    scores = scores + add
    out = np.zeros(scores.shape)
    flat_s, flat_o = scores.reshape(-1, source), out.reshape(-1, source)
    for i, row in enumerate(flat_s):
        if np.all(row == -np.inf):
            continue  # every key masked: the row stays 0
        e = np.exp(row - row.max())
        flat_o[i] = e / e.sum()
    return out @ v


def test_plain_values_match_the_formula():
    q, k, v = randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 6)
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 6)
    np.testing.assert_allclose(arr(out), reference(q, k, v), rtol=1e-12, atol=1e-14)


def test_two_dim_inputs_and_broadcast_batch_dims():
    q, k, v = randn(3, 4), randn(5, 4), randn(5, 2)
    np.testing.assert_allclose(arr(F.scaled_dot_product_attention(q, k, v)), reference(q, k, v),
                               rtol=1e-12)
    q, k, v = randn(2, 1, 3, 4), randn(1, 3, 5, 4), randn(1, 3, 5, 4)
    out = F.scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 3, 4)
    np.testing.assert_allclose(arr(out), reference(q, k, v), rtol=1e-12)


def test_a_one_by_one_attention_is_the_value():
    # a single key: every weight is 1, whatever the scores
    q, k, v = randn(2, 3, 4), randn(2, 1, 4), randn(2, 1, 5)
    out = F.scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(arr(out), np.broadcast_to(arr(v), (2, 3, 5)), rtol=1e-14)


def test_bool_mask_true_takes_part_and_broadcasts():
    q, k, v = randn(2, 2, 3, 4), randn(2, 2, 5, 4), randn(2, 2, 5, 3)
    mask = ag.tensor(rng.random((3, 5)) > 0.4)
    mask[:, 0] = True
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    np.testing.assert_allclose(arr(out), reference(q, k, v, mask), rtol=1e-12)
    # a per-head mask (2, 1, 3, 5): broadcast over the batch dim... only where it fits
    mask4 = ag.tensor(rng.random((2, 1, 3, 5)) > 0.3)
    ref = np.stack([reference(q[b], k[b], v[b], mask4[b, 0]) for b in range(2)])
    np.testing.assert_allclose(arr(F.scaled_dot_product_attention(q, k, v, attn_mask=mask4)),
                               ref, rtol=1e-12)


def test_float_mask_is_added_to_the_scores():
    q, k, v = randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 3)
    mask = randn(3, 5)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    np.testing.assert_allclose(arr(out), reference(q, k, v, mask), rtol=1e-12)
    neg = t64([[0.0, -math.inf, 1.0, 0.0, -math.inf]] * 3)
    np.testing.assert_allclose(arr(F.scaled_dot_product_attention(q, k, v, attn_mask=neg)),
                               reference(q, k, v, neg), rtol=1e-12)


def test_bool_and_float_masks_agree():
    q, k, v = randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 3)
    keep = ag.tensor([[True, False, True, True, False]] * 3)
    as_float = ag.where(keep, 0.0, -math.inf).to(ag.float64)
    np.testing.assert_allclose(arr(F.scaled_dot_product_attention(q, k, v, attn_mask=keep)),
                               arr(F.scaled_dot_product_attention(q, k, v, attn_mask=as_float)),
                               rtol=1e-14)


def test_causal_masks_the_upper_triangle_also_when_not_square():
    for length, source in ((4, 4), (3, 5), (5, 3)):
        q, k, v = randn(2, length, 4), randn(2, source, 4), randn(2, source, 3)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        np.testing.assert_allclose(arr(out), reference(q, k, v, causal=True), rtol=1e-12)
    # the first query sees the first key only
    q, k, v = randn(1, 3, 2), randn(1, 3, 2), randn(1, 3, 2)
    np.testing.assert_allclose(arr(F.scaled_dot_product_attention(q, k, v, is_causal=True))[0, 0],
                               arr(v)[0, 0], rtol=1e-14)


def test_scale_replaces_one_over_sqrt_e():
    q, k, v = randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 3)
    for scale in (0.1, 2.0, -0.5, 0.0):
        out = F.scaled_dot_product_attention(q, k, v, scale=scale)
        np.testing.assert_allclose(arr(out), reference(q, k, v, scale=scale), rtol=1e-12,
                                   atol=1e-14)
    # scale 0: uniform weights, the mean of the values
    np.testing.assert_allclose(arr(F.scaled_dot_product_attention(q, k, v, scale=0.0)),
                               np.broadcast_to(arr(v).mean(1, keepdims=True), (2, 3, 3)),
                               rtol=1e-12)


def test_grouped_query_attention_repeats_kv_heads():
    q, k, v = randn(2, 6, 3, 4), randn(2, 2, 5, 4), randn(2, 3, 5, 2)
    out = F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
    assert out.shape == (2, 6, 3, 2)
    np.testing.assert_allclose(arr(out), reference(q, k, v, gqa=True), rtol=1e-12)
    # query head h reads key head h // (6 // 2)
    alone = F.scaled_dot_product_attention(q[:, 5], k[:, 1], v[:, 2])
    np.testing.assert_allclose(arr(out[:, 5]), arr(alone), rtol=1e-12)
    with pytest.raises(RuntimeError, match="must divide the number of heads"):
        F.scaled_dot_product_attention(randn(1, 3, 2, 4), k[:1], v[:1], enable_gqa=True)
    with pytest.raises(RuntimeError, match="broadcast"):  # without enable_gqa
        F.scaled_dot_product_attention(q, k, k)
    with pytest.raises(IndexError, match="Dimension out of range"):
        F.scaled_dot_product_attention(randn(3, 4), randn(5, 4), randn(5, 4), enable_gqa=True)


def test_fully_masked_rows_give_zero_output_and_zero_gradients():
    q, k, v = (randn(2, 3, 4, requires_grad=True), randn(2, 5, 4, requires_grad=True),
               randn(2, 5, 3, requires_grad=True))
    keep = ag.tensor([[True, True, False, True, False], [False] * 5, [True] * 5])
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
    assert np.all(arr(out)[:, 1] == 0) and np.all(np.isfinite(arr(out)))
    np.testing.assert_allclose(arr(out), reference(q, k, v, keep), rtol=1e-12)
    out.sum().backward()
    assert np.all(arr(q.grad)[:, 1] == 0)
    for x in (q, k, v):
        assert np.all(np.isfinite(arr(x.grad)))
    # the same with a float mask of -inf, and with an empty key sequence
    neg = ag.where(keep, 0.0, -math.inf).to(ag.float64)
    assert np.all(arr(F.scaled_dot_product_attention(q, k, v, attn_mask=neg))[:, 1] == 0)
    empty = F.scaled_dot_product_attention(randn(2, 3, 4), ag.zeros(2, 0, 4, dtype=ag.float64),
                                           ag.zeros(2, 0, 6, dtype=ag.float64))
    assert empty.shape == (2, 3, 6) and not np.any(arr(empty))


def test_dropout_zeroes_weights_and_rescales_the_rest():
    # with the identity as the values, the output is the (dropped) attention weights
    q, k = randn(2, 4, 3), randn(2, 6, 3)
    v = t64(np.broadcast_to(np.eye(6), (2, 6, 6)).copy())
    weights = arr(F.scaled_dot_product_attention(q, k, v))
    ag.manual_seed(0)
    dropped = arr(F.scaled_dot_product_attention(q, k, v, dropout_p=0.4))
    kept = dropped != 0
    assert 0 < kept.sum() < kept.size
    np.testing.assert_allclose(dropped[kept], weights[kept] / 0.6, rtol=1e-12)
    assert not np.any(arr(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)))
    # dropout_p <= 0 is no dropout (PyTorch accepts negative values)
    np.testing.assert_allclose(arr(F.scaled_dot_product_attention(q, k, v, dropout_p=-0.1)),
                               weights, rtol=1e-14)


def test_gradcheck_and_gradgradcheck():
    def make():
        return (randn(2, 3, 4, requires_grad=True), randn(2, 4, 4, requires_grad=True),
                randn(2, 4, 3, requires_grad=True))

    assert gradcheck(F.scaled_dot_product_attention, make())
    assert gradgradcheck(F.scaled_dot_product_attention, make())
    keep = ag.tensor([[True, False, True, True], [False] * 4, [True, True, False, False]])
    masked = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=keep)  # noqa: E731
    assert gradcheck(masked, make()) and gradgradcheck(masked, make())
    # the float mask gets a gradient too
    with_mask = lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m)  # noqa
    assert gradcheck(with_mask, make() + (randn(3, 4, requires_grad=True),))
    causal = lambda q, k, v: F.scaled_dot_product_attention(  # noqa: E731
        q, k, v, is_causal=True, scale=0.3)
    assert gradcheck(causal, make()) and gradgradcheck(causal, make())
    gqa = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)  # noqa: E731
    assert gradcheck(gqa, (randn(1, 4, 2, 3, requires_grad=True),
                           randn(1, 2, 3, 3, requires_grad=True),
                           randn(1, 2, 3, 2, requires_grad=True)))


def test_errors_name_the_problem():
    q, k, v = randn(2, 3, 4), randn(2, 5, 4), randn(2, 5, 4)
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(q.float(), k, v)
    with pytest.raises(RuntimeError, match="at least 2 dimensional"):
        F.scaled_dot_product_attention(randn(4), randn(4), randn(4))
    with pytest.raises(RuntimeError, match="attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=ag.ones(3, 5, dtype=ag.int64))
    with pytest.raises(RuntimeError, match="attn_mask dtype"):  # float32 mask, float64 query
        F.scaled_dot_product_attention(q, k, v, attn_mask=ag.zeros(3, 5))
    with pytest.raises(RuntimeError, match="should not be set when is_causal=True"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=ag.ones(3, 5, dtype=ag.bool),
                                       is_causal=True)
    with pytest.raises(RuntimeError, match="dropout probability has to be between 0 and 1"):
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
    with pytest.raises(RuntimeError, match="same embedding size"):
        F.scaled_dot_product_attention(q, randn(2, 5, 3), v)
    with pytest.raises(RuntimeError, match="same sequence length"):
        F.scaled_dot_product_attention(q, k, randn(2, 6, 4))
    with pytest.raises(RuntimeError, match=r"does not broadcast.*\[2, 3, 5\]"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=ag.ones(3, 4, dtype=ag.bool))
    with pytest.raises(RuntimeError, match="does not broadcast"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=ag.ones(7, 2, 3, 5, dtype=ag.bool))
    with pytest.raises(RuntimeError, match="floating"):
        F.scaled_dot_product_attention(*(ag.ones(2, 3, 4, dtype=ag.int64),) * 3)


@needs_torch
@pytest.mark.parametrize("kw", [
    {}, {"is_causal": True}, {"scale": 0.25}, {"mask": "bool"}, {"mask": "float"},
    {"mask": "bool4d"}, {"mask": "empty_row"}, {"enable_gqa": True},
])
def test_matches_pytorch_values_and_gradients(kw):
    kw = dict(kw)
    g = torch.Generator().manual_seed(7)
    heads_kv = 2 if kw.get("enable_gqa") else 4
    tq = torch.randn(2, 4, 3, 5, generator=g, dtype=torch.float64, requires_grad=True)
    tk = torch.randn(2, heads_kv, 6, 5, generator=g, dtype=torch.float64, requires_grad=True)
    tv = torch.randn(2, heads_kv, 6, 2, generator=g, dtype=torch.float64, requires_grad=True)
    kind = kw.pop("mask", None)
    tmask = None
    if kind == "bool":
        tmask = torch.rand(3, 6, generator=g) > 0.5
    elif kind == "float":
        tmask = torch.randn(3, 6, generator=g, dtype=torch.float64, requires_grad=True)
    elif kind == "bool4d":
        tmask = torch.rand(2, 1, 3, 6, generator=g) > 0.3
    elif kind == "empty_row":
        tmask = torch.rand(3, 6, generator=g) > 0.5
        tmask[1] = False
    leaves = [tq, tk, tv] + ([tmask] if kind == "float" else [])
    expected = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tmask, **kw)
    weights = torch.randn(expected.shape, generator=g, dtype=torch.float64)
    (expected * weights).sum().backward()

    def to_ag(t):
        return ag.tensor(t.detach().numpy(), requires_grad=t.requires_grad)

    q, k, v = to_ag(tq), to_ag(tk), to_ag(tv)
    mask = None if tmask is None else to_ag(tmask)
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, **kw)
    np.testing.assert_allclose(arr(out), expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    (out * ag.tensor(weights.numpy())).sum().backward()
    ours = [q, k, v] + ([mask] if kind == "float" else [])
    for mine, theirs in zip(ours, leaves):
        np.testing.assert_allclose(arr(mine.grad), theirs.grad.numpy(), rtol=1e-9, atol=1e-12)


@needs_torch
def test_float32_matches_pytorch():
    g = torch.Generator().manual_seed(3)
    tq, tk, tv = (torch.randn(2, 3, 4, 8, generator=g) for _ in range(3))
    expected = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=True)
    out = F.scaled_dot_product_attention(*(ag.tensor(t.numpy()) for t in (tq, tk, tv)),
                                         is_causal=True)
    assert out.dtype is ag.float32
    np.testing.assert_allclose(arr(out), expected.numpy(), rtol=1e-5, atol=1e-6)
