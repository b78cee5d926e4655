"""Transformer layers, stacks and nn.Transformer: names and init as PyTorch's, values against
NumPy references, masks, norm_first, batch_first, activations, deep copies, errors, gradcheck,
and PyTorch's own modules (state_dict loaded: same outputs and gradients) where installed."""

import math
import warnings

import numpy as np
import pytest
from attention_ref import decoder_layer, encoder_layer, layer_norm
from nn_helpers import arr, gradcheck_module, t64

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad import nn
from arraygrad.autograd import gradgradcheck
from arraygrad.nn.modules.transformer import _detect_is_causal_mask

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

rng = np.random.default_rng(7)

ENCODER_LAYER_KEYS = [
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
    "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
    "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"]


def randn(*shape, requires_grad=False):
    return t64(rng.standard_normal(shape), requires_grad=requires_grad)


def quiet(factory, *args, **kwargs):
    """Build a module, ignoring the enable_nested_tensor warning PyTorch's encoder gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return factory(*args, **kwargs)


def test_generate_square_subsequent_mask():
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype is ag.float32 and mask.shape == (3, 3)
    expected = np.array([[0, -np.inf, -np.inf], [0, 0, -np.inf], [0, 0, 0]])
    np.testing.assert_array_equal(arr(mask), expected)
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=ag.float64).dtype is ag.float64
    assert _detect_is_causal_mask(mask) is True
    assert _detect_is_causal_mask(ag.zeros(3, 3)) is False
    assert _detect_is_causal_mask(mask, size=4) is False
    assert _detect_is_causal_mask(None, True) is True


def test_encoder_layer_names_defaults_and_activation():
    layer = nn.TransformerEncoderLayer(8, 2)
    assert list(layer.state_dict()) == ENCODER_LAYER_KEYS
    assert layer.linear1.weight.shape == (2048, 8) and layer.dropout.p == 0.1
    assert layer.norm1.eps == 1e-5 and layer.self_attn.batch_first is False
    assert layer.activation is F.relu and layer.activation_relu_or_gelu == 1
    assert nn.TransformerEncoderLayer(8, 2, activation="gelu").activation is F.gelu
    assert nn.TransformerEncoderLayer(8, 2, activation=nn.GELU()).activation_relu_or_gelu == 2
    assert nn.TransformerEncoderLayer(8, 2, activation=ag.tanh).activation_relu_or_gelu == 0
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
    no_bias = nn.TransformerEncoderLayer(8, 2, 16, bias=False)
    assert no_bias.linear1.bias is None and no_bias.norm1.bias is None
    assert no_bias.self_attn.in_proj_bias is None
    dec = nn.TransformerDecoderLayer(8, 2, 16)
    assert [k for k in dec.state_dict() if k.startswith(("multihead_attn", "norm3"))] == [
        "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias",
        "multihead_attn.out_proj.weight", "multihead_attn.out_proj.bias", "norm3.weight",
        "norm3.bias"]


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_values(norm_first):
    layer = nn.TransformerEncoderLayer(6, 3, 5, dropout=0.5, norm_first=norm_first,
                                       activation="gelu").double().eval()
    for p in (layer.norm1.weight, layer.norm2.bias):  # not the trivial LayerNorm
        p.data.copy_(randn(6))
    x = randn(4, 2, 6)
    kpm = ag.tensor([[False, False, True, False], [False, False, False, False]])
    mask = randn(4, 4)
    additive = arr(mask)[None] + np.where(np.asarray(kpm.tolist())[:, None, :], -np.inf, 0.0)
    gelu = lambda z: 0.5 * z * (1 + np.vectorize(math.erf)(z / math.sqrt(2)))  # noqa: E731
    expected = encoder_layer(layer, arr(x), additive, gelu)
    out = layer(x, src_mask=mask, src_key_padding_mask=kpm)
    np.testing.assert_allclose(arr(out), expected, rtol=1e-10, atol=1e-12)
    # batch first, unbatched: the same numbers in other layouts
    bf = nn.TransformerEncoderLayer(6, 3, 5, norm_first=norm_first, activation="gelu",
                                    batch_first=True).double().eval()
    bf.load_state_dict(layer.state_dict())
    np.testing.assert_allclose(arr(bf(x.transpose(0, 1), mask, kpm)),
                               expected.transpose(1, 0, 2), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(arr(layer(x[:, 1], src_mask=mask)),
                               encoder_layer(layer, arr(x)[:, 1:], arr(mask)[None], gelu)[:, 0],
                               rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_values(norm_first):
    layer = nn.TransformerDecoderLayer(4, 2, 6, norm_first=norm_first).double().eval()
    layer.norm3.weight.data.copy_(randn(4))
    tgt, memory = randn(3, 2, 4), randn(5, 2, 4)
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=ag.float64)
    mem_kpm = ag.tensor([[False, True, False, False, False], [False] * 5])
    expected = decoder_layer(layer, arr(tgt), arr(memory), arr(tgt_mask)[None],
                             np.where(np.asarray(mem_kpm.tolist())[:, None, :], -np.inf, 0.0))
    out = layer(tgt, memory, tgt_mask=tgt_mask, memory_key_padding_mask=mem_kpm)
    np.testing.assert_allclose(arr(out), expected, rtol=1e-10, atol=1e-12)
    hinted = layer(tgt, memory, tgt_mask=tgt_mask, memory_key_padding_mask=mem_kpm,
                   tgt_is_causal=True)
    np.testing.assert_allclose(arr(hinted), expected, rtol=1e-10, atol=1e-12)


def test_encoder_stack_deep_copies_and_norm():
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, batch_first=True)
    enc = nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(4))
    assert enc.num_layers == 3 and len(enc.layers) == 3
    assert list(enc.state_dict())[:2] == ["layers.0.self_attn.in_proj_weight",
                                          "layers.0.self_attn.in_proj_bias"]
    assert list(enc.state_dict())[-2:] == ["norm.weight", "norm.bias"]
    firsts = [m.linear1.weight for m in enc.layers]
    assert len({id(w) for w in firsts}) == 3 and all(w is not layer.linear1.weight
                                                      for w in firsts)
    for w in firsts:  # copies: the same starting values as the given layer
        np.testing.assert_array_equal(arr(w), arr(layer.linear1.weight))
    enc.double().eval()
    x = randn(2, 3, 4)
    expected = arr(x).transpose(1, 0, 2)
    for m in enc.layers:
        expected = encoder_layer(m, expected)
    expected = layer_norm(expected, enc.norm).transpose(1, 0, 2)
    np.testing.assert_allclose(arr(enc(x)), expected, rtol=1e-10, atol=1e-12)


def test_encoder_nested_tensor_warning_as_pytorch():
    with pytest.warns(UserWarning, match="self.use_nested_tensor is False because "
                                         "encoder_layer.self_attn.batch_first was not True"):
        enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6), 1)
    assert enc.enable_nested_tensor is True and enc.use_nested_tensor is False
    with pytest.warns(UserWarning, match="encoder_layer.norm_first was True"):
        nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6, norm_first=True), 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fast = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6, batch_first=True), 1)
        nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6), 1, enable_nested_tensor=False)
    assert fast.use_nested_tensor is True and fast.mask_check is True


def test_encoder_zeroes_padded_positions_where_pytorch_uses_nested_tensors():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6, batch_first=True), 2)
    enc.double().eval()
    x = randn(2, 3, 4)
    kpm = ag.tensor([[False, False, True], [False, False, False]])
    with ag.no_grad():
        out = arr(enc(x, src_key_padding_mask=kpm))
    assert np.all(out[0, 2] == 0) and np.all(out[1] != 0)
    with_grad = arr(enc(x, src_key_padding_mask=kpm))  # parameters need grad: the dense path
    assert np.all(with_grad[0, 2] != 0)
    np.testing.assert_allclose(out[0, :2], with_grad[0, :2], rtol=1e-12)
    with ag.no_grad():
        # not left-aligned padding: the dense path
        right = ag.tensor([[True, False, False], [False, False, False]])
        assert np.all(arr(enc(x, src_key_padding_mask=right))[0, 0] != 0)


def test_transformer_init_names_and_errors():
    model = quiet(nn.Transformer, 8, 2, 2, 1, 16)
    keys = list(model.state_dict())
    assert keys[0] == "encoder.layers.0.self_attn.in_proj_weight"
    assert "decoder.layers.0.multihead_attn.out_proj.weight" in keys
    assert keys[-2:] == ["decoder.norm.weight", "decoder.norm.bias"]
    assert len(model.encoder.layers) == 2 and len(model.decoder.layers) == 1
    for name, p in model.named_parameters():
        if p.dim() > 1:  # xavier_uniform_ on every matrix
            bound = math.sqrt(6 / (p.shape[0] + p.shape[1]))
            assert np.abs(arr(p)).max() <= bound, name
        elif name.endswith("norm1.weight"):
            assert np.all(arr(p) == 1)
    # the layers are re-initialised one by one (no longer copies of each other)
    w0 = arr(model.encoder.layers[0].linear1.weight)
    assert not np.array_equal(w0, arr(model.encoder.layers[1].linear1.weight))
    assert (model.d_model, model.nhead, model.batch_first) == (8, 2, False)
    src, tgt = randn(5, 2, 8), randn(3, 2, 8)
    model.double()
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        model(src, randn(3, 1, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal"):
        model(src, randn(3, 2, 4))
    assert model(src, tgt).shape == (3, 2, 8)
    custom = quiet(nn.Transformer, 8, 2, custom_encoder=nn.Identity(),
                   custom_decoder=nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 4), 1))
    assert isinstance(custom.encoder, nn.Identity)


def test_transformer_values_from_its_parts():
    model = quiet(nn.Transformer, 4, 2, 1, 1, 6, dropout=0.0, norm_first=True).double().eval()
    src, tgt = randn(5, 2, 4), randn(3, 2, 4)
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(3, dtype=ag.float64)
    memory = layer_norm(encoder_layer(model.encoder.layers[0], arr(src)), model.encoder.norm)
    expected = layer_norm(decoder_layer(model.decoder.layers[0], arr(tgt), memory,
                                        arr(tgt_mask)[None]), model.decoder.norm)
    np.testing.assert_allclose(arr(model(src, tgt, tgt_mask=tgt_mask)), expected, rtol=1e-10,
                               atol=1e-12)
    np.testing.assert_allclose(arr(model(src[:, 0], tgt[:, 0], tgt_mask=tgt_mask)),
                               expected[:, 0], rtol=1e-10, atol=1e-12)


def test_dropout_in_training_only():
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.5).double()
    x = randn(3, 2, 4)
    ag.manual_seed(0)
    a = arr(layer(x))
    b = arr(layer(x))
    assert not np.allclose(a, b)
    layer.eval()
    np.testing.assert_array_equal(arr(layer(x)), arr(layer(x)))


def test_gradcheck_layers():
    enc = nn.TransformerEncoderLayer(4, 2, 3, dropout=0.0, norm_first=True)
    kpm = ag.tensor([[False, True, False], [False, False, False]])

    class Enc(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = enc

        def forward(self, x):
            return self.layer(x, src_key_padding_mask=kpm)

    gradcheck_module(Enc(), randn(3, 2, 4))
    dec = nn.TransformerDecoderLayer(4, 2, 3, dropout=0.0)
    mask = nn.Transformer.generate_square_subsequent_mask(2, dtype=ag.float64)

    class Dec(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = dec

        def forward(self, x, memory):
            return self.layer(x, memory, tgt_mask=mask)

    gradcheck_module(Dec(), randn(2, 1, 4), randn(3, 1, 4))
    layer = nn.TransformerEncoderLayer(4, 2, 3, dropout=0.0, activation="gelu").double()
    assert gradgradcheck(lambda x: layer(x, src_key_padding_mask=kpm),
                         (randn(3, 2, 4, requires_grad=True),))


# -- against PyTorch ---------------------------------------------------------------------------

def _to_ag(t):
    return None if t is None else ag.tensor(t.detach().numpy(), requires_grad=t.requires_grad)


def _pair(factory_name, *args, **kwargs):
    """PyTorch's module and ours, built from the same arguments, ours loaded with its
    state_dict (the keys must be the same, in the same order)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the encoder's enable_nested_tensor notice
        tm = getattr(torch.nn, factory_name)(*args, **kwargs).double()
        m = getattr(nn, factory_name)(*args, **kwargs).double()
    assert list(m.state_dict()) == list(tm.state_dict())
    m.load_state_dict({k: ag.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    return tm, m


def _compare(tm, m, t_inputs, kwargs, g):
    """Same outputs; same gradients of the inputs and every parameter."""
    tout = tm(*t_inputs, **kwargs)
    inputs = [_to_ag(t) for t in t_inputs]
    out = m(*inputs, **{k: _to_ag(v) if torch.is_tensor(v) else v for k, v in kwargs.items()})
    np.testing.assert_allclose(arr(out), tout.detach().numpy(), rtol=1e-9, atol=1e-11)
    weights = torch.randn(tout.shape, generator=g, dtype=torch.float64)
    (tout * weights).sum().backward()
    (out * ag.tensor(weights.numpy())).sum().backward()
    for mine, theirs in zip(inputs, t_inputs):
        np.testing.assert_allclose(arr(mine.grad), theirs.grad.numpy(), rtol=1e-8, atol=1e-10)
    ours = dict(m.named_parameters())
    for name, p in tm.named_parameters():
        np.testing.assert_allclose(arr(ours[name].grad), p.grad.numpy(), rtol=1e-8, atol=1e-10,
                                   err_msg=name)


LAYER_CONFIGS = [
    dict(), dict(norm_first=True), dict(batch_first=True), dict(activation="gelu"),
    dict(bias=False, layer_norm_eps=1e-3), dict(norm_first=True, batch_first=True),
]


@needs_torch
@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=lambda c: ",".join(c) or "default")
@pytest.mark.parametrize("masks", ["none", "bool", "float", "causal"])
def test_encoder_layer_matches_pytorch(cfg, masks):
    g = torch.Generator().manual_seed(11)
    tm, m = _pair("TransformerEncoderLayer", 6, 2, 5, 0.2, **cfg)
    tm.eval(), m.eval()
    bf = cfg.get("batch_first", False)
    x = torch.randn(*((2, 4, 6) if bf else (4, 2, 6)), generator=g, dtype=torch.float64,
                    requires_grad=True)
    kw = {}
    if masks == "bool":
        kw = dict(src_mask=torch.rand(4, 4, generator=g) > 0.7,
                  src_key_padding_mask=torch.tensor([[False, False, True, False], [False] * 4]))
        kw["src_mask"][:, 0] = False
    elif masks == "float":
        kw = dict(src_mask=torch.randn(4, 4, generator=g, dtype=torch.float64),
                  src_key_padding_mask=torch.tensor([[0.0, 0.0, 0.0, -math.inf], [0.0] * 4],
                                                    dtype=torch.float64))
    elif masks == "causal":
        kw = dict(src_mask=torch.nn.Transformer.generate_square_subsequent_mask(
            4, dtype=torch.float64), is_causal=True)
    _compare(tm, m, [x], kw, g)


@needs_torch
@pytest.mark.parametrize("cfg", LAYER_CONFIGS, ids=lambda c: ",".join(c) or "default")
def test_decoder_layer_matches_pytorch(cfg):
    g = torch.Generator().manual_seed(12)
    tm, m = _pair("TransformerDecoderLayer", 6, 3, 5, 0.2, **cfg)
    tm.eval(), m.eval()
    bf = cfg.get("batch_first", False)
    tgt = torch.randn(*((2, 3, 6) if bf else (3, 2, 6)), generator=g, dtype=torch.float64,
                      requires_grad=True)
    mem = torch.randn(*((2, 5, 6) if bf else (5, 2, 6)), generator=g, dtype=torch.float64,
                      requires_grad=True)
    kw = dict(tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(
        3, dtype=torch.float64), memory_mask=torch.rand(3, 5, generator=g) > 0.8,
        tgt_key_padding_mask=torch.tensor([[False, False, True], [False] * 3]),
        memory_key_padding_mask=torch.tensor([[False, True, False, False, False], [False] * 5]),
        tgt_is_causal=True)
    kw["memory_mask"][:, 0] = False
    _compare(tm, m, [tgt, mem], kw, g)


@needs_torch
@pytest.mark.parametrize("cfg", [dict(), dict(batch_first=True, norm_first=True)],
                         ids=["default", "batch_first,norm_first"])
def test_transformer_matches_pytorch(cfg):
    g = torch.Generator().manual_seed(13)
    tm, m = _pair("Transformer", 6, 2, 2, 2, 5, 0.1, **cfg)
    tm.eval(), m.eval()
    bf = cfg.get("batch_first", False)

    def inp(length):
        return torch.randn(*((2, length, 6) if bf else (length, 2, 6)), generator=g,
                           dtype=torch.float64, requires_grad=True)

    src, tgt = inp(4), inp(3)
    kw = dict(src_mask=torch.randn(4, 4, generator=g, dtype=torch.float64),
              tgt_mask=torch.nn.Transformer.generate_square_subsequent_mask(
                  3, dtype=torch.float64),
              memory_mask=torch.zeros(3, 4, dtype=torch.float64),
              src_key_padding_mask=torch.tensor([[False, False, False, True], [False] * 4]),
              tgt_key_padding_mask=torch.tensor([[False, True, False], [False] * 3]),
              memory_key_padding_mask=torch.tensor([[False, False, False, True], [False] * 4]))
    _compare(tm, m, [src, tgt], kw, g)
    # unbatched
    tm.zero_grad(), m.zero_grad()
    s1 = torch.randn(4, 6, generator=g, dtype=torch.float64, requires_grad=True)
    t1 = torch.randn(3, 6, generator=g, dtype=torch.float64, requires_grad=True)
    _compare(tm, m, [s1, t1], dict(tgt_mask=kw["tgt_mask"]), g)


@needs_torch
def test_encoder_stack_matches_pytorch_including_the_nested_tensor_path():
    g = torch.Generator().manual_seed(14)
    t_layer = torch.nn.TransformerEncoderLayer(4, 2, 6, batch_first=True).double()
    tm = torch.nn.TransformerEncoder(t_layer, 2, norm=torch.nn.LayerNorm(4).double())
    m = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6, batch_first=True), 2,
                              norm=nn.LayerNorm(4)).double()
    assert list(m.state_dict()) == list(tm.state_dict())
    m.load_state_dict({k: ag.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    tm.eval(), m.eval()
    x = torch.randn(2, 3, 4, generator=g, dtype=torch.float64)
    kpm = torch.tensor([[False, False, True], [False, False, False]])
    with torch.no_grad(), ag.no_grad():
        expected = tm(x, src_key_padding_mask=kpm).numpy()
        np.testing.assert_allclose(arr(m(_to_ag(x), src_key_padding_mask=_to_ag(kpm))), expected,
                                   rtol=1e-9, atol=1e-11)
    x.requires_grad_(True)
    _compare(tm, m, [x], dict(src_key_padding_mask=kpm), g)
    # a causal mask is detected (is_causal=None) and gives the same numbers
    causal = torch.nn.Transformer.generate_square_subsequent_mask(3, dtype=torch.float64)
    tm.zero_grad(), m.zero_grad()
    _compare(tm, m, [torch.randn(2, 3, 4, generator=g, dtype=torch.float64,
                                 requires_grad=True)], dict(mask=causal), g)


def test_copies_keep_a_module_activation_and_old_state_gets_relu():
    import copy

    layer = nn.TransformerEncoderLayer(4, 2, 6, activation=nn.GELU())
    for other in (copy.deepcopy(layer),
                  nn.TransformerEncoder(layer, 1, enable_nested_tensor=False).layers[0]):
        assert isinstance(other.activation, nn.GELU) and other.activation is not layer.activation
    for cls in (nn.TransformerEncoderLayer, nn.TransformerDecoderLayer):
        old = cls(4, 2, 6)
        state = dict(old.__dict__)
        del state["activation"]
        fresh = cls.__new__(cls)
        fresh.__setstate__(state)
        assert fresh.activation is F.relu
