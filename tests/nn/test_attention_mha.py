"""nn.MultiheadAttention and F.multi_head_attention_forward: parameters and init as PyTorch's,
values against a NumPy reference, masks, layouts, errors, gradcheck, and PyTorch's own module
(its state_dict loaded: same outputs, weights and gradients) where installed."""

import copy
import math

import numpy as np
import pytest
from attention_ref import mha as reference, softmax
from nn_helpers import arr, gradcheck_module, t64

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad import nn
from arraygrad.autograd import gradgradcheck

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

rng = np.random.default_rng(99)


def randn(*shape, requires_grad=False):
    return t64(rng.standard_normal(shape), requires_grad=requires_grad)


def test_parameters_names_shapes_and_init():
    m = nn.MultiheadAttention(8, 2)
    assert list(m.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                    "out_proj.bias"]
    assert m.in_proj_weight.shape == (24, 8) and m.in_proj_bias.shape == (24,)
    assert m.q_proj_weight is None and m.bias_k is None and m.bias_v is None
    assert type(m.out_proj).__name__ == "NonDynamicallyQuantizableLinear"
    assert isinstance(m.out_proj, nn.Linear)
    assert not np.any(arr(m.in_proj_bias)) and not np.any(arr(m.out_proj.bias))
    # xavier_uniform_ on (3E, E): bound sqrt(6 / (E + 3E))
    assert np.abs(arr(m.in_proj_weight)).max() <= math.sqrt(6 / 32)
    assert (m.head_dim, m.kdim, m.vdim, m._qkv_same_embed_dim, m.batch_first) == (4, 8, 8, True,
                                                                                 False)
    sep = nn.MultiheadAttention(8, 4, kdim=3, vdim=5, add_bias_kv=True, bias=False)
    assert list(sep.state_dict()) == ["q_proj_weight", "k_proj_weight", "v_proj_weight",
                                      "bias_k", "bias_v", "out_proj.weight"]
    assert sep.k_proj_weight.shape == (8, 3) and sep.v_proj_weight.shape == (8, 5)
    assert sep.bias_k.shape == (1, 1, 8) and sep.in_proj_weight is None
    assert sep.in_proj_bias is None and sep.out_proj.bias is None
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear("
                       "in_features=8, out_features=8, bias=True)\n)")
    assert nn.MultiheadAttention(4, 2, dtype=ag.float64).in_proj_weight.dtype is ag.float64


def test_constructor_errors():
    with pytest.raises(ValueError, match="embed_dim and num_heads must be greater than 0"):
        nn.MultiheadAttention(0, 2)
    with pytest.raises(ValueError, match="num_heads=-1"):
        nn.MultiheadAttention(4, -1)
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)


@pytest.mark.parametrize("kw", [{}, {"kdim": 3, "vdim": 5}, {"bias": False}])
def test_values_against_numpy(kw):
    m = nn.MultiheadAttention(6, 3, **kw).double()
    q, k, v = randn(4, 2, 6), randn(5, 2, kw.get("kdim", 6)), randn(5, 2, kw.get("vdim", 6))
    out, weights = m(q, k, v, average_attn_weights=False)
    ref_out, ref_w = reference(m, q, k, v)
    np.testing.assert_allclose(arr(out), ref_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(arr(weights), ref_w, rtol=1e-12, atol=1e-14)
    _, averaged = m(q, k, v)
    np.testing.assert_allclose(arr(averaged), ref_w.mean(1), rtol=1e-12)
    no_weights, none = m(q, k, v, need_weights=False)
    assert none is None
    np.testing.assert_allclose(arr(no_weights), ref_out, rtol=1e-12, atol=1e-14)


def test_self_attention_uses_one_projection_and_agrees():
    m = nn.MultiheadAttention(4, 2).double()
    x = randn(3, 2, 4)
    np.testing.assert_allclose(arr(m(x, x, x)[0]), reference(m, x, x, x)[0], rtol=1e-12)
    mem = randn(5, 2, 4)  # key is value: the packed key/value projection
    np.testing.assert_allclose(arr(m(x, mem, mem)[0]), reference(m, x, mem, mem)[0], rtol=1e-12)


def test_masks_bool_float_padding_and_3d():
    m = nn.MultiheadAttention(4, 2).double()
    q, k = randn(3, 2, 4), randn(5, 2, 4)
    kpm = ag.tensor([[False, True, False, False, True], [False, False, False, True, False]])
    am = ag.tensor([[False, False, True, False, False], [True, False, False, False, False],
                    [False, False, False, False, False]])
    add = np.where(np.asarray(am.tolist())[None], -np.inf, 0.0) + np.where(
        np.asarray(kpm.tolist())[:, None, :], -np.inf, 0.0)
    ref_out, ref_w = reference(m, q, k, k, add)
    out, w = m(q, k, k, key_padding_mask=kpm, attn_mask=am)
    np.testing.assert_allclose(arr(out), ref_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(arr(w), ref_w.mean(1), rtol=1e-12, atol=1e-14)
    # the same as float masks (-inf added), and without weights (the SDPA path)
    fk = ag.where(kpm, -math.inf, 0.0).double()
    fa = ag.where(am, -math.inf, 0.0).double()
    np.testing.assert_allclose(arr(m(q, k, k, key_padding_mask=fk, attn_mask=fa)[0]), ref_out,
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(arr(m(q, k, k, key_padding_mask=kpm, attn_mask=am,
                                     need_weights=False)[0]), ref_out, rtol=1e-12, atol=1e-14)
    # a 3-D mask (N*heads, L, S): one per batch entry and head
    am3 = ag.tensor(rng.random((4, 3, 5)) > 0.7)
    am3[:, :, 0] = False
    out3, w3 = m(q, k, k, attn_mask=am3, average_attn_weights=False)
    add3 = np.where(np.asarray(am3.tolist()), -np.inf, 0.0).reshape(2, 2, 3, 5)
    for b in range(2):
        for i in range(2):
            _, ref_w3 = reference(m, q, k, k, np.broadcast_to(add3[:, i], (2, 3, 5)))
            np.testing.assert_allclose(arr(w3)[b, i], ref_w3[b, i], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(arr(m(q, k, k, attn_mask=am3, need_weights=False)[0]), arr(out3),
                               rtol=1e-12, atol=1e-14)


def test_mismatched_mask_types_warn_and_bad_mask_types_fail():
    m = nn.MultiheadAttention(4, 2).double()
    q = randn(3, 2, 4)
    kpm = ag.zeros(2, 3, dtype=ag.bool)
    with pytest.warns(UserWarning, match="mismatched key_padding_mask and attn_mask"):
        m(q, q, q, key_padding_mask=kpm, attn_mask=ag.zeros(3, 3, dtype=ag.float64))
    with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask"):
        m(q, q, q, key_padding_mask=ag.zeros(2, 3, dtype=ag.int64))
    with pytest.raises(AssertionError, match="only bool and floating types of attn_mask"):
        m(q, q, q, attn_mask=ag.zeros(3, 3, dtype=ag.int64))


def test_unbatched_and_batch_first_layouts():
    m = nn.MultiheadAttention(4, 2).double()
    q, k = randn(3, 4), randn(5, 4)
    kpm = ag.tensor([False, True, False, False, False])
    out, w = m(q, k, k, key_padding_mask=kpm)
    bout, bw = m(q.unsqueeze(1), k.unsqueeze(1), k.unsqueeze(1), key_padding_mask=kpm[None])
    assert out.shape == (3, 4) and w.shape == (3, 5)
    np.testing.assert_allclose(arr(out), arr(bout)[:, 0], rtol=1e-14)
    np.testing.assert_allclose(arr(w), arr(bw)[0], rtol=1e-14)
    assert m(q, k, k, average_attn_weights=False)[1].shape == (2, 3, 5)
    assert m(q, k, k, need_weights=False)[0].shape == (3, 4)
    bf = nn.MultiheadAttention(4, 2, batch_first=True).double()
    bf.load_state_dict(m.state_dict())
    x, mem = randn(2, 3, 4), randn(2, 5, 4)
    for args in ((x, x, x), (x, mem, mem), (x, mem, randn(2, 5, 4))):
        out_bf, w_bf = bf(*args)
        out_sf, w_sf = m(*(a.transpose(0, 1) for a in args))
        np.testing.assert_allclose(arr(out_bf), arr(out_sf.transpose(0, 1)), rtol=1e-14)
        np.testing.assert_allclose(arr(w_bf), arr(w_sf), rtol=1e-14)


def test_bias_kv_and_zero_attn_add_key_columns():
    m = nn.MultiheadAttention(4, 2, add_bias_kv=True, add_zero_attn=True).double()
    q, k = randn(3, 2, 4), randn(5, 2, 4)
    kpm = ag.tensor([[False, False, True, False, False]] * 2)
    out, w = m(q, k, k, key_padding_mask=kpm, average_attn_weights=False)
    assert w.shape == (2, 2, 3, 7)  # 5 keys + bias_k + the zero key
    assert not np.any(arr(w)[:, :, :, 2])  # the padded key
    assert np.all(arr(w)[:, :, :, 5:] > 0)  # the added columns are never masked
    # the zero key has score 0 and value 0: its weight is exp(0) / sum
    np.testing.assert_allclose(arr(w).sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(arr(m(q, k, k, key_padding_mask=kpm, need_weights=False)[0]),
                               arr(out), rtol=1e-12, atol=1e-14)


def test_is_causal_hint_needs_a_mask_and_agrees_with_it():
    m = nn.MultiheadAttention(4, 2).double()
    x = randn(4, 2, 4)
    causal = nn.Transformer.generate_square_subsequent_mask(4, dtype=ag.float64)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    expected = arr(m(x, x, x, attn_mask=causal)[0])
    for need in (True, False):
        np.testing.assert_allclose(arr(m(x, x, x, attn_mask=causal, is_causal=True,
                                         need_weights=need)[0]), expected, rtol=1e-12)


def test_fully_masked_rows_nan_with_weights_zero_without():
    # as PyTorch: the weights path uses a plain softmax (NaN), the SDPA path gives 0
    m = nn.MultiheadAttention(4, 2).double()
    x = randn(2, 1, 4)
    am = ag.tensor([[True, True], [False, False]])
    with np.errstate(invalid="ignore"):
        out, w = m(x, x, x, attn_mask=am)
    assert np.all(np.isnan(arr(w)[0, 0])) and np.all(np.isnan(arr(out)[0]))
    out2, _ = m(x, x, x, attn_mask=am, need_weights=False)
    np.testing.assert_allclose(arr(out2)[0, 0], arr(m.out_proj.bias), rtol=1e-14)


def test_dropout_only_in_training():
    m = nn.MultiheadAttention(4, 2, dropout=1.0).double()
    x = randn(3, 2, 4)
    out, w = m(x, x, x)  # every weight dropped: the output is the out_proj bias
    assert not np.any(arr(w))
    np.testing.assert_allclose(arr(out), np.broadcast_to(arr(m.out_proj.bias), (3, 2, 4)))
    m.eval()
    np.testing.assert_allclose(arr(m(x, x, x)[0]), reference(m, x, x, x)[0], rtol=1e-12)


def test_shape_errors():
    m = nn.MultiheadAttention(4, 2).double()
    x = randn(3, 2, 4)
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D"):
        m(randn(1, 3, 2, 4), x, x)
    with pytest.raises(AssertionError, match="expected `key` and `value` to be 3-D"):
        m(x, randn(3, 4), x)
    with pytest.raises(AssertionError, match="`key_padding_mask` to be `None` or 2-D"):
        m(x, x, x, key_padding_mask=ag.zeros(3, dtype=ag.bool))
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is .*\(3, 3\)"):
        m(x, x, x, attn_mask=ag.zeros(3, 4, dtype=ag.bool))
    with pytest.raises(RuntimeError, match="The shape of the 3D attn_mask"):
        m(x, x, x, attn_mask=ag.zeros(2, 3, 3, dtype=ag.bool))
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 4, but got 5"):
        m(randn(3, 2, 5), randn(3, 2, 5), randn(3, 2, 5))
    with pytest.raises(AssertionError, match="Expected key_padded_mask.shape\\[1\\] to be 3"):
        m(x, x, x, key_padding_mask=ag.zeros(2, 4, dtype=ag.bool))
    with pytest.raises(AssertionError, match="key shape .* does not match value shape"):
        m(x, x, randn(4, 2, 4))
    with pytest.raises(AssertionError, match="Expected `attn_mask` shape to be"):
        m(randn(3, 4), randn(3, 4), randn(3, 4), attn_mask=ag.zeros(1, 3, 3, dtype=ag.bool))


def test_functional_argument_errors():
    x = randn(3, 2, 4)
    w, wo = randn(12, 4), randn(4, 4)
    with pytest.raises(AssertionError, match="bias_k is set but bias_v is None"):
        F.multi_head_attention_forward(x, x, x, 4, 2, w, None, randn(1, 1, 4), None, False, 0.0,
                                       wo, None)
    with pytest.raises(AssertionError, match="in_proj_weight is None"):
        F.multi_head_attention_forward(x, x, x, 4, 2, None, None, None, None, False, 0.0, wo,
                                       None)
    with pytest.raises(AssertionError, match="q_proj_weight is None"):
        F.multi_head_attention_forward(x, x, x, 4, 2, None, None, None, None, False, 0.0, wo,
                                       None, use_separate_proj_weight=True)
    with pytest.raises(AssertionError, match="expecting key weights shape of"):
        F.multi_head_attention_forward(x, x, x, 4, 2, None, None, None, None, False, 0.0, wo,
                                       None, use_separate_proj_weight=True,
                                       q_proj_weight=wo, k_proj_weight=randn(4, 3),
                                       v_proj_weight=wo)
    with pytest.raises(AssertionError, match="embed_dim 4 not divisible by num_heads 3"):
        F.multi_head_attention_forward(x, x, x, 4, 3, w, None, None, None, False, 0.0, wo, None)


def test_static_k_and_v_replace_the_projected_keys():
    m = nn.MultiheadAttention(4, 2).double()
    x = randn(3, 2, 4)
    sk, sv = randn(4, 6, 2), randn(4, 6, 2)  # (N*heads, S, head_dim)
    out, w = F.multi_head_attention_forward(
        x, x, x, 4, 2, m.in_proj_weight, m.in_proj_bias, None, None, False, 0.0,
        m.out_proj.weight, m.out_proj.bias, static_k=sk, static_v=sv, average_attn_weights=False)
    q = (arr(x) @ arr(m.in_proj_weight)[:4].T + arr(m.in_proj_bias)[:4])
    q = q.reshape(3, 4, 2).transpose(1, 0, 2)  # (N*heads, L, d)
    ref_w = softmax(q @ arr(sk).transpose(0, 2, 1) / math.sqrt(2))
    np.testing.assert_allclose(arr(w).reshape(4, 3, 6), ref_w, rtol=1e-12)
    heads = (ref_w @ arr(sv)).transpose(1, 0, 2).reshape(3, 2, 4)
    ref = heads @ arr(m.out_proj.weight).T + arr(m.out_proj.bias)
    # (atol: an output near 0 is a sum that cancels, its rounding relative to the sum's terms)
    np.testing.assert_allclose(arr(out), ref, rtol=1e-12, atol=1e-14)
    with pytest.raises(AssertionError, match="expecting static_k.size\\(0\\) of 4"):
        F.multi_head_attention_forward(x, x, x, 4, 2, m.in_proj_weight, None, None, None, False,
                                       0.0, m.out_proj.weight, None, static_k=randn(3, 6, 2))


def test_gradcheck_module_and_gradgradcheck_functional():
    m = nn.MultiheadAttention(4, 2, kdim=3, vdim=2, add_bias_kv=True)
    kpm = ag.tensor([[False, True, False], [False, False, False]])
    gradcheck_module(m, randn(2, 2, 4), randn(3, 2, 3), randn(3, 2, 2))

    class Masked(nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = nn.MultiheadAttention(4, 2, add_zero_attn=True)

        def forward(self, x):
            out, w = self.attn(x, x, x, key_padding_mask=kpm, average_attn_weights=False)
            return out.sum() + (w * w).sum()

    gradcheck_module(Masked(), randn(3, 2, 4))

    def fn(x, w, b, wo):
        return F.multi_head_attention_forward(x, x, x, 4, 2, w, b, None, None, False, 0.0, wo,
                                              None, need_weights=False, key_padding_mask=kpm)[0]

    assert gradgradcheck(fn, (randn(3, 2, 4, requires_grad=True),
                              randn(12, 4, requires_grad=True), randn(12, requires_grad=True),
                              randn(4, 4, requires_grad=True)))


def test_deep_copies_and_old_state():
    m = nn.MultiheadAttention(4, 2, kdim=3).double()
    x, k, v = randn(2, 1, 4), randn(3, 1, 3), randn(3, 1, 4)
    other = copy.deepcopy(m)  # through __setstate__
    assert other._qkv_same_embed_dim is False and other.k_proj_weight is not m.k_proj_weight
    np.testing.assert_allclose(arr(other(x, k, v)[0]), arr(m(x, k, v)[0]), rtol=1e-14)
    # a state saved before kdim/vdim existed had one packed projection
    old = nn.MultiheadAttention(4, 2)
    state = dict(old.__dict__)
    del state["_qkv_same_embed_dim"]
    old.__setstate__(state)
    assert old._qkv_same_embed_dim is True


# -- against PyTorch ---------------------------------------------------------------------------

def _to_ag(t):
    return ag.tensor(t.detach().numpy(), requires_grad=t.requires_grad)


def _torch_pair(**kw):
    tm = torch.nn.MultiheadAttention(**kw).double().eval()
    m = nn.MultiheadAttention(**kw).double().eval()
    assert list(m.state_dict()) == list(tm.state_dict())
    m.load_state_dict({k: ag.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return tm, m


CONFIGS = [
    dict(), dict(kdim=3, vdim=5), dict(add_bias_kv=True), dict(add_zero_attn=True),
    dict(bias=False), dict(batch_first=True), dict(add_bias_kv=True, add_zero_attn=True, kdim=3),
]


@needs_torch
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: ",".join(c) or "default")
@pytest.mark.parametrize("masks", ["none", "bool", "float", "attn3d"])
def test_matches_pytorch(cfg, masks):
    g = torch.Generator().manual_seed(5)
    tm, m = _torch_pair(embed_dim=6, num_heads=2, dropout=0.3, **cfg)
    bf = cfg.get("batch_first", False)

    def inp(length, dim):
        shape = (2, length, dim) if bf else (length, 2, dim)
        return torch.randn(*shape, generator=g, dtype=torch.float64, requires_grad=True)

    tq, tk, tv = inp(3, 6), inp(4, cfg.get("kdim", 6)), inp(4, cfg.get("vdim", 6))
    kpm = am = None
    if masks in ("bool", "float"):
        kpm = torch.tensor([[False, True, False, False], [False, False, False, True]])
        am = torch.rand(3, 4, generator=g) > 0.7
        am[:, 0] = False
        if masks == "float":
            kpm = torch.zeros(2, 4, dtype=torch.float64).masked_fill(kpm, -math.inf)
            am = torch.randn(3, 4, generator=g, dtype=torch.float64)
    elif masks == "attn3d":
        am = torch.rand(4, 3, 4, generator=g) > 0.6
        am[..., 0] = False
    for need, avg in ((True, True), (True, False), (False, True)):
        tout, tw = tm(tq, tk, tv, key_padding_mask=kpm, attn_mask=am, need_weights=need,
                      average_attn_weights=avg)
        q, k, v = _to_ag(tq), _to_ag(tk), _to_ag(tv)
        out, w = m(q, k, v, key_padding_mask=None if kpm is None else _to_ag(kpm),
                   attn_mask=None if am is None else _to_ag(am), need_weights=need,
                   average_attn_weights=avg)
        np.testing.assert_allclose(arr(out), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
        if need:
            np.testing.assert_allclose(arr(w), tw.detach().numpy(), rtol=1e-10, atol=1e-12)
        else:
            assert w is None and tw is None
        weights = torch.randn(tout.shape, generator=g, dtype=torch.float64)
        tm.zero_grad()
        for t in (tq, tk, tv):
            t.grad = None
        (tout * weights).sum().backward()
        m.zero_grad()
        (out * ag.tensor(weights.numpy())).sum().backward()
        for mine, theirs in zip((q, k, v), (tq, tk, tv)):
            np.testing.assert_allclose(arr(mine.grad), theirs.grad.numpy(), rtol=1e-9,
                                       atol=1e-12)
        mine_p = dict(m.named_parameters())
        for name, p in tm.named_parameters():
            np.testing.assert_allclose(arr(mine_p[name].grad), p.grad.numpy(), rtol=1e-9,
                                       atol=1e-12, err_msg=name)


@needs_torch
def test_unbatched_and_causal_match_pytorch():
    tm, m = _torch_pair(embed_dim=4, num_heads=2)
    g = torch.Generator().manual_seed(1)
    x = torch.randn(5, 4, generator=g, dtype=torch.float64)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(5, dtype=torch.float64)
    for need in (True, False):
        tout, tw = tm(x, x, x, attn_mask=mask, is_causal=True, need_weights=need)
        out, w = m(_to_ag(x), _to_ag(x), _to_ag(x), attn_mask=_to_ag(mask), is_causal=True,
                   need_weights=need)
        np.testing.assert_allclose(arr(out), tout.detach().numpy(), rtol=1e-10, atol=1e-12)
        if need:
            np.testing.assert_allclose(arr(w), tw.detach().numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
def test_fully_masked_rows_match_pytorch():
    tm, m = _torch_pair(embed_dim=4, num_heads=2)
    x = torch.randn(3, 2, 4, dtype=torch.float64)
    am = torch.tensor([[True, True, True], [False, True, False], [False, False, False]])
    for need in (True, False):
        tout = tm(x, x, x, attn_mask=am, need_weights=need)[0].detach().numpy()
        with np.errstate(invalid="ignore"):
            out = arr(m(_to_ag(x), _to_ag(x), _to_ag(x), attn_mask=_to_ag(am),
                        need_weights=need)[0])
        np.testing.assert_allclose(out, tout, rtol=1e-10, atol=1e-12)  # NaN where PyTorch's is
