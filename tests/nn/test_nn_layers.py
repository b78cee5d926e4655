"""Layers: output shapes, values against float64 formulas, gradcheck, train/eval, default init."""

import math

import numpy as np
import pytest
from nn_helpers import F64, arr, gradcheck_module, t64

import arraygrad as ag
from arraygrad import nn

rng = np.random.default_rng(1234)


def randn(*shape):
    return t64(rng.standard_normal(shape))


# -- linear family ---------------------------------------------------------------------------

def test_linear_shape_values_gradcheck_and_init_bounds():
    lin = nn.Linear(5, 3)
    bound = 1 / math.sqrt(5)
    assert float(ag.max(ag.abs(lin.weight))) <= bound
    assert float(ag.max(ag.abs(lin.bias))) <= bound
    assert lin.weight.dtype is ag.float32
    lin.double()
    x = randn(2, 4, 5)
    out = lin(x)
    assert out.shape == (2, 4, 3)
    np.testing.assert_allclose(arr(out), arr(x) @ arr(lin.weight).T + arr(lin.bias), rtol=1e-12)
    gradcheck_module(lin, randn(2, 5))
    assert nn.Linear(2, 2, bias=False).bias is None


def test_linear_init_is_spread_over_the_bound():
    ag.manual_seed(0)
    w = nn.Linear(400, 50).weight
    b = 1 / math.sqrt(400)
    assert float(w.max()) > 0.95 * b and float(w.min()) < -0.95 * b


def test_bilinear():
    m = nn.Bilinear(3, 2, 4).double()
    bound = 1 / math.sqrt(3)
    assert float(ag.max(ag.abs(m.weight))) <= bound
    x1, x2 = randn(5, 3), randn(5, 2)
    out = m(x1, x2)
    expected = np.einsum("ni,kij,nj->nk", arr(x1), arr(m.weight), arr(x2)) + arr(m.bias)
    np.testing.assert_allclose(arr(out), expected, rtol=1e-12)
    gradcheck_module(m, randn(2, 3), randn(2, 2))
    assert repr(m) == "Bilinear(in1_features=3, in2_features=2, out_features=4, bias=True)"


def test_identity_flatten_unflatten():
    x = randn(2, 3, 4)
    assert nn.Identity(54, foo=1)(x) is x
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Unflatten(1, (3, 2, 2))(nn.Flatten()(x)).shape == (2, 3, 2, 2)
    assert nn.Unflatten(-1, (2, -1))(x).shape == (2, 3, 2, 2)
    assert repr(nn.Flatten()) == "Flatten(start_dim=1, end_dim=-1)"
    assert repr(nn.Unflatten(1, (2, 2))) == "Unflatten(dim=1, unflattened_size=(2, 2))"
    gradcheck_module(nn.Sequential(nn.Flatten(), nn.Unflatten(1, (4, 3))), randn(2, 3, 4))


# -- dropout ----------------------------------------------------------------------------------

def _dropout_pattern(x, y, p):
    """Checks ``y = dropout(x, p)`` elementwise: each output is 0 or exactly ``x / (1 - p)``,
    about ``p`` of them zeroed; returns the kept mask."""
    xs, ys = arr(x), arr(y)
    kept = ys != 0
    np.testing.assert_allclose(ys[kept], xs[kept] / (1 - p), rtol=1e-15)
    assert abs((~kept).mean() - p) < 0.02, f"zeroed {(~kept).mean():.3f}, expected {p}"
    return kept


def test_dropout_train_and_eval():
    ag.manual_seed(0)
    d = nn.Dropout(0.25)
    # distinct nonzero values: a dropout that ignored its input, or did nothing, shows
    x = t64(rng.uniform(0.5, 1.5, (200, 50)) * rng.choice([-1.0, 1.0], (200, 50)),
            requires_grad=True)
    y = d(x)
    kept = _dropout_pattern(x, y, 0.25)
    y.sum().backward()
    np.testing.assert_allclose(arr(x.grad), kept / 0.75)  # 1/(1-p) where kept, 0 elsewhere
    ones = d(ag.ones(200, 50, dtype=F64))
    assert set(np.unique(arr(ones)).tolist()) == {0.0, 1 / 0.75}
    _dropout_pattern(ag.ones(400, 50), nn.functional.dropout(ag.ones(400, 50)), 0.5)
    # eval mode, p == 0 and training=False are the identity (the same tensor)
    d.eval()
    assert d(x) is x
    assert nn.Dropout(0.0)(x) is x
    assert nn.functional.dropout(x, 0.5, training=False) is x
    assert nn.Dropout(1.0)(x).sum().item() == 0 and not arr(nn.Dropout(1.0)(x)).any()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        nn.Dropout(1.5)
    assert repr(d) == "Dropout(p=0.25, inplace=False)"


def test_dropout_inplace_zeroes_and_scales_the_input():
    ag.manual_seed(1)
    x = t64(rng.uniform(0.5, 1.5, (100, 40)))
    before = x.clone()
    y = nn.Dropout(0.4, inplace=True)(x)
    assert y is x
    _dropout_pattern(before, x, 0.4)


def test_dropout_reproducible_with_seed():
    ag.manual_seed(3)
    a = nn.functional.dropout(ag.ones(20))
    ag.manual_seed(3)
    b = nn.functional.dropout(ag.ones(20))
    assert a.tolist() == b.tolist()
    assert set(a.tolist()) == {0.0, 2.0}  # p = 0.5: zeroed or doubled
    ag.manual_seed(4)
    assert nn.functional.dropout(ag.ones(20)).tolist() != a.tolist()


# -- embedding ----------------------------------------------------------------------------------

def test_embedding_lookup_padding_and_gradient():
    emb = nn.Embedding(6, 3, padding_idx=2)
    assert emb.weight[2].tolist() == [0., 0., 0.]
    idx = ag.tensor([[0, 2, 2], [5, 1, 0]])
    out = emb(idx)
    assert out.shape == (2, 3, 3)
    np.testing.assert_allclose(arr(out), arr(emb.weight)[np.array(idx.tolist())])
    out.sum().backward()
    counts = np.zeros(6)
    for i in [0, 2, 2, 5, 1, 0]:
        counts[i] += 1
    counts[2] = 0  # the padding row gets no gradient
    np.testing.assert_allclose(arr(emb.weight.grad), np.repeat(counts[:, None], 3, axis=1))
    assert repr(emb) == "Embedding(6, 3, padding_idx=2)"
    gradcheck_module(nn.Embedding(4, 2), ag.tensor([1, 3, 1]))
    with pytest.raises(IndexError, match="index out of range"):
        emb(ag.tensor([6]))


def test_embedding_from_pretrained_and_max_norm():
    w = t64([[3., 4.], [0.3, 0.4]])
    emb = nn.Embedding.from_pretrained(w)
    assert not emb.weight.requires_grad
    emb2 = nn.Embedding.from_pretrained(w.clone(), max_norm=1.0)
    out = emb2(ag.tensor([0, 1]))
    np.testing.assert_allclose(arr(out), [[0.6, 0.8], [0.3, 0.4]], rtol=1e-6)


# -- normalisation -------------------------------------------------------------------------------

def _bn_reference(x, axes, eps=1e-5):
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def test_batchnorm1d_train_running_stats_and_eval():
    bn = nn.BatchNorm1d(3, momentum=0.2).double()
    assert repr(bn) == "BatchNorm1d(3, eps=1e-05, momentum=0.2, affine=True, bias=True, track_running_stats=True)"
    xs = [randn(8, 3) * 2 + 1 for _ in range(3)]
    rm, rv = np.zeros(3), np.ones(3)
    for x in xs:
        out = bn(x)
        a = arr(x)
        np.testing.assert_allclose(arr(out), _bn_reference(a, 0), rtol=1e-10, atol=1e-12)
        rm = 0.8 * rm + 0.2 * a.mean(0)
        rv = 0.8 * rv + 0.2 * a.var(0, ddof=1)
    np.testing.assert_allclose(arr(bn.running_mean), rm, rtol=1e-12)
    np.testing.assert_allclose(arr(bn.running_var), rv, rtol=1e-12)
    assert bn.num_batches_tracked.item() == 3
    bn.eval()
    x = randn(4, 3)
    np.testing.assert_allclose(arr(bn(x)), (arr(x) - rm) / np.sqrt(rv + 1e-5), rtol=1e-12)
    assert bn.num_batches_tracked.item() == 3


def test_batchnorm_gradcheck_train_and_eval():
    bn = nn.BatchNorm1d(3).double()
    with ag.no_grad():
        bn.weight.copy_(randn(3))
        bn.bias.copy_(randn(3))
    gradcheck_module(bn, randn(5, 3, 2))
    bn.eval()
    gradcheck_module(bn, randn(5, 3))
    bn2 = nn.BatchNorm2d(2).double()
    gradcheck_module(bn2, randn(3, 2, 2, 2))


def test_batchnorm2d_options():
    x = randn(4, 2, 3, 3)
    bn = nn.BatchNorm2d(2, affine=False, track_running_stats=False).double()
    assert bn.weight is None and bn.running_mean is None
    assert list(bn.state_dict()) == []
    np.testing.assert_allclose(arr(bn(x)), _bn_reference(arr(x), (0, 2, 3)), rtol=1e-10)
    bn.eval()  # no running stats: still batch statistics
    np.testing.assert_allclose(arr(bn(x)), _bn_reference(arr(x), (0, 2, 3)), rtol=1e-10)
    cma = nn.BatchNorm2d(2, momentum=None).double()
    a, b = randn(4, 2, 3, 3), randn(4, 2, 3, 3)
    cma(a)
    cma(b)
    expected = (arr(a).mean((0, 2, 3)) + arr(b).mean((0, 2, 3))) / 2
    np.testing.assert_allclose(arr(cma.running_mean), expected, rtol=1e-12)
    with pytest.raises(ValueError, match="expected 4D input"):
        cma(randn(2, 2))
    with pytest.raises(ValueError, match="expected 2D or 3D input"):
        nn.BatchNorm1d(2)(ag.ones(1, 2, 1, 1))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        nn.BatchNorm1d(2)(ag.ones(1, 2))
    assert [n for n, _ in nn.BatchNorm1d(2).named_buffers()] == [
        "running_mean", "running_var", "num_batches_tracked"]


def test_layernorm():
    ln = nn.LayerNorm((3, 4)).double()
    assert repr(ln) == "LayerNorm((3, 4), eps=1e-05, elementwise_affine=True, bias=True)"
    with ag.no_grad():
        ln.weight.copy_(randn(3, 4))
        ln.bias.copy_(randn(3, 4))
    x = randn(2, 3, 4)
    expected = _bn_reference(arr(x), (1, 2)) * arr(ln.weight) + arr(ln.bias)
    np.testing.assert_allclose(arr(ln(x)), expected, rtol=1e-10)
    gradcheck_module(ln, randn(2, 3, 4))
    assert nn.LayerNorm(4, elementwise_affine=False).weight is None


def test_groupnorm():
    gn = nn.GroupNorm(2, 4).double()
    assert repr(gn) == "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"
    x = randn(3, 4, 5)
    a = arr(x).reshape(3, 2, 10)
    expected = _bn_reference(a, (2,)).reshape(3, 4, 5)
    np.testing.assert_allclose(arr(gn(x)), expected, rtol=1e-10)
    with ag.no_grad():
        gn.weight.copy_(randn(4))
    gradcheck_module(gn, randn(2, 4, 3))
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(3, 4)


# -- activations ------------------------------------------------------------------------------------

def _erf(v):
    return np.vectorize(math.erf)(v)


ACTIVATIONS = [
    (nn.ReLU(), lambda x: np.maximum(x, 0), "ReLU()"),
    (nn.LeakyReLU(0.2), lambda x: np.where(x > 0, x, 0.2 * x), "LeakyReLU(negative_slope=0.2)"),
    (nn.GELU(), lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))), "GELU(approximate='none')"),
    (nn.GELU("tanh"),
     lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
     "GELU(approximate='tanh')"),
    (nn.SiLU(), lambda x: x / (1 + np.exp(-x)), "SiLU()"),
    (nn.Tanh(), np.tanh, "Tanh()"),
    (nn.Sigmoid(), lambda x: 1 / (1 + np.exp(-x)), "Sigmoid()"),
    (nn.LogSigmoid(), lambda x: -np.log1p(np.exp(-x)), "LogSigmoid()"),
    (nn.Softmax(dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True), "Softmax(dim=1)"),
    (nn.LogSoftmax(dim=1), lambda x: x - np.log(np.exp(x).sum(1, keepdims=True)),
     "LogSoftmax(dim=1)"),
    (nn.ELU(alpha=0.5), lambda x: np.where(x > 0, x, 0.5 * (np.exp(x) - 1)), "ELU(alpha=0.5)"),
    (nn.Softplus(beta=2, threshold=3),
     lambda x: np.where(2 * x > 3, x, np.log1p(np.exp(2 * x)) / 2), "Softplus(beta=2, threshold=3)"),
]


@pytest.mark.parametrize("module, formula, text", ACTIVATIONS, ids=[a[2] for a in ACTIVATIONS])
def test_activation_values_gradcheck_repr(module, formula, text):
    x = randn(3, 4) * 2
    out = module(x)
    assert out.shape == (3, 4)
    np.testing.assert_allclose(arr(out), formula(arr(x)), rtol=1e-10, atol=1e-12)
    # keep gradcheck away from the kinks at 0 and at the softplus threshold
    xg = t64(np.sign(rng.standard_normal((2, 3))) * (0.2 + rng.random((2, 3))))
    gradcheck_module(module, xg)
    assert repr(module) == text


def test_activations_large_inputs_have_finite_gradients():
    x = t64([-800., -30., 0., 30., 800.], requires_grad=True)
    for m in (nn.ELU(), nn.Softplus(), nn.SiLU(), nn.GELU(), nn.LogSigmoid()):
        x.grad = None
        y = m(x)
        y.sum().backward()
        assert np.isfinite(arr(y)).all() and np.isfinite(arr(x.grad)).all(), m


def test_inplace_activations():
    x = randn(4)
    y = nn.ReLU(inplace=True)(x)
    assert y is x and float(x.min()) >= 0
    assert repr(nn.ReLU(inplace=True)) == "ReLU(inplace=True)"
    assert repr(nn.ELU(inplace=True)) == "ELU(alpha=1.0, inplace=True)"


# -- containers --------------------------------------------------------------------------------

def test_sequential_indexing_slicing_append():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and seq[1] is list(seq)[1]
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and len(head) == 2 and head[0] is seq[0]
    seq.append(nn.Sigmoid())
    assert len(seq) == 4 and seq(ag.ones(5, 2)).shape == (5, 1)
    del seq[1]
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2"]
    with pytest.raises(IndexError, match="index 7 is out of range"):
        seq[7]
    from collections import OrderedDict

    named = nn.Sequential(OrderedDict([("enc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert named.enc is named[0] and list(named.state_dict()) == ["enc.weight", "enc.bias"]
    gradcheck_module(nn.Sequential(nn.Linear(3, 2), nn.Tanh(), nn.Linear(2, 1)), randn(2, 3))


def test_modulelist_moduledict_parameterlist():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    ml.append(nn.ReLU())
    assert len(ml) == 4 and len(list(ml.parameters())) == 6
    assert isinstance(ml[1:], nn.ModuleList) and len(ml[1:]) == 3
    ml.extend([nn.Tanh()])
    assert isinstance(ml[-1], nn.Tanh)
    md = nn.ModuleDict({"a": nn.Linear(1, 1), "b": nn.ReLU()})
    md["c"] = nn.Tanh()
    assert list(md.keys()) == ["a", "b", "c"] and "b" in md and len(md) == 3
    assert [n for n, _ in md.named_parameters()] == ["a.weight", "a.bias"]
    pl = nn.ParameterList([nn.Parameter(ag.ones(2)), ag.zeros(3)])
    assert all(isinstance(p, nn.Parameter) for p in pl)
    pl.append(ag.ones(1))
    assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2"]
    assert repr(pl) == (
        "ParameterList(\n"
        "    (0): Parameter containing: [arraygrad.float32 of size 2]\n"
        "    (1): Parameter containing: [arraygrad.float32 of size 3]\n"
        "    (2): Parameter containing: [arraygrad.float32 of size 1]\n)")
