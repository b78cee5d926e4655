"""PyTorch's top-level forms of the nn ops (``torch.conv2d``, ``torch.layer_norm``,
``torch.lstm``...), ATen's positional signatures, against PyTorch; and ``Tensor.hardshrink`` /
``Tensor.prelu``."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck

torch = pytest.importorskip("torch", reason="compares against PyTorch")


def _pair(*shape, positive=False):
    x = torch.randn(*shape, dtype=torch.float64)
    if positive:
        x = x.abs() + 0.1
    return x, ag.tensor(x.numpy())


def _close(mine, theirs, atol=1e-10):
    if isinstance(theirs, (tuple, list)):
        assert len(mine) == len(theirs)
        for m, t in zip(mine, theirs):
            _close(m, t, atol)
        return
    np.testing.assert_allclose(np.asarray(mine.detach().numpy(), dtype=np.float64),
                               theirs.detach().numpy().astype(np.float64), atol=atol)


def test_convolutions_and_pooling():
    x, xa = _pair(2, 3, 9, 8)
    w, wa = _pair(4, 3, 3, 3)
    b, ba = _pair(4)
    _close(ag.conv2d(xa, wa, ba, 2, 1), torch.conv2d(x, w, b, 2, 1))
    _close(ag.convolution(xa, wa, ba, [1, 1], [1, 0], [1, 1], False, [0, 0], 1),
           torch.convolution(x, w, b, [1, 1], [1, 0], [1, 1], False, [0, 0], 1))
    wt, wta = _pair(3, 2, 3, 3)
    _close(ag.convolution(xa, wta, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1),
           torch.convolution(x, wt, None, [2, 2], [1, 1], [1, 1], True, [1, 1], 1))
    _close(ag.max_pool2d(xa, 3, 2), torch.max_pool2d(x, 3, 2))
    _close(ag.max_pool2d(xa, [2, 2]), torch.max_pool2d(x, [2, 2]))
    s, sa = _pair(2, 3, 10)
    _close(ag.avg_pool1d(sa, 3), torch.avg_pool1d(s, 3))
    _close(ag.max_pool1d_with_indices(sa, 2, 2), torch.max_pool1d_with_indices(s, 2, 2))
    _close(ag.adaptive_max_pool1d(sa, 4), torch.adaptive_max_pool1d(s, 4))
    _close(ag.adaptive_avg_pool1d(sa, 4), torch.adaptive_avg_pool1d(s, 4))
    _close(ag.constant_pad_nd(sa, [1, 2], 3.5), torch.constant_pad_nd(s, [1, 2], 3.5))


def test_grid_sampler_and_affine_grid():
    x, xa = _pair(2, 3, 5, 6)
    theta, thetaa = _pair(2, 2, 3)
    grid = torch.affine_grid_generator(theta, [2, 3, 4, 4], False)
    _close(ag.affine_grid_generator(thetaa, [2, 3, 4, 4], False), grid)
    grida = ag.tensor(grid.numpy())
    for mode in (0, 1, 2):
        for padding in (0, 1, 2):
            _close(ag.grid_sampler(xa, grida, mode, padding, True),
                   torch.grid_sampler(x, grid, mode, padding, True), atol=1e-8)
    _close(ag.grid_sampler_2d(xa, grida, 0, 0, False), torch.grid_sampler_2d(x, grid, 0, 0,
                                                                               False))
    with pytest.raises(RuntimeError, match="grid_sampler"):
        ag.grid_sampler_3d(xa, grida, 0, 0, False)


def test_normalizations():
    x, xa = _pair(4, 3, 5)
    w, wa = _pair(3)
    b, ba = _pair(3)
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rma, rva = ag.zeros(3, dtype=ag.float64), ag.ones(3, dtype=ag.float64)
    _close(ag.batch_norm(xa, wa, ba, rma, rva, True, 0.1, 1e-5, False),
           torch.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, False))
    _close([rma, rva], [rm, rv])
    _close(ag.native_batch_norm(xa, wa, ba, None, None, True, 0.1, 1e-5),
           torch.native_batch_norm(x, w, b, None, None, True, 0.1, 1e-5))
    out, m, i = ag.native_batch_norm(xa, None, None, rma, rva, False, 0.1, 1e-5)
    assert tuple(m.shape) == (0,) and tuple(i.shape) == (0,)
    _close(ag.native_layer_norm(xa, [5], None, None, 1e-5),
           torch.native_layer_norm(x, [5], None, None, 1e-5))
    _close(ag.native_group_norm(xa, wa, ba, 4, 3, 5, 3, 1e-5),
           torch.native_group_norm(x, w, b, 4, 3, 5, 3, 1e-5))
    _close(ag.layer_norm(xa, [3, 5]), torch.layer_norm(x, [3, 5]))
    _close(ag.group_norm(xa, 3, wa, ba), torch.group_norm(x, 3, w, b))
    _close(ag.instance_norm(xa, wa, ba, None, None, True, 0.1, 1e-5, False),
           torch.instance_norm(x, w, b, None, None, True, 0.1, 1e-5, False))
    _close(ag.rms_norm(xa, [5]), torch.rms_norm(x, [5]))
    rm, rv = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    rma, rva = ag.zeros(3, dtype=ag.float64), ag.ones(3, dtype=ag.float64)
    _close(ag.batch_norm_update_stats(xa, rma, rva, 0.1),
           torch.batch_norm_update_stats(x, rm, rv, 0.1))
    _close([rma, rva], [rm, rv])
    v, va = _pair(3, 4)
    for p, d in ((2, 0), (2, -1), (3, 1)):
        _close(ag.norm_except_dim(va, p, d), torch.norm_except_dim(v, p, d))


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses_take_the_integer_reduction(reduction):
    a, aa = _pair(4, 5)
    b, ba = _pair(4, 5)
    t = torch.tensor([1.0, -1.0, 1.0, -1.0], dtype=torch.float64)
    ta = ag.tensor(t.numpy())
    _close(ag.cosine_embedding_loss(aa, ba, ta, 0.1, reduction),
           torch.cosine_embedding_loss(a, b, t, 0.1, reduction))
    _close(ag.margin_ranking_loss(aa[:, 0], ba[:, 0], ta, 0.2, reduction),
           torch.margin_ranking_loss(a[:, 0], b[:, 0], t, 0.2, reduction))
    _close(ag.hinge_embedding_loss(aa[:, 0], ta, 1.0, reduction),
           torch.hinge_embedding_loss(a[:, 0], t, 1.0, reduction))
    _close(ag.kl_div(aa.log_softmax(1), ba.softmax(1), reduction),
           torch.kl_div(a.log_softmax(1), b.softmax(1), reduction))
    _close(ag.triplet_margin_loss(aa, ba, aa * 2, 1.0, 2.0, 1e-6, True, reduction),
           torch.triplet_margin_loss(a, b, a * 2, 1.0, 2.0, 1e-6, True, reduction))
    y, ya = _pair(4, 5, positive=True)
    _close(ag.poisson_nll_loss(aa, ya, True, True, 1e-8, reduction),
           torch.poisson_nll_loss(a, y, True, True, 1e-8, reduction))
    p = torch.rand(4, 5, dtype=torch.float64)
    _close(ag.binary_cross_entropy_with_logits(aa, ag.tensor(p.numpy()), None, None, reduction),
           torch.binary_cross_entropy_with_logits(a, p, None, None, reduction))
    lp = torch.randn(6, 2, 4, dtype=torch.float64).log_softmax(2)
    targets = torch.tensor([[1, 2], [3, 1]])
    _close(ag.ctc_loss(ag.tensor(lp.numpy()), ag.tensor(targets.numpy()), [6, 5], [2, 2], 0,
                       reduction, False),
           torch.ctc_loss(lp, targets, [6, 5], [2, 2], 0, reduction, False))


def test_elementwise_forms():
    x, xa = _pair(3, 4)
    _close(ag.celu(xa, 0.5), torch.celu(x, 0.5))
    _close(ag.selu(xa), torch.selu(x))
    _close(ag.threshold(xa, 0.1, -2.0), torch.threshold(x, 0.1, -2.0))
    _close(ag.hardshrink(xa, 0.3), torch.hardshrink(x, 0.3))
    _close(xa.hardshrink(0.3), x.hardshrink(0.3))
    w, wa = _pair(4)
    _close(ag.prelu(xa, wa), torch.prelu(x, w))
    _close(xa.prelu(wa), x.prelu(w))
    _close(ag.rrelu(xa), torch.rrelu(x))
    _close(ag.pdist(xa), torch.pdist(x))
    y = xa.clone()
    assert ag.selu_(y) is y and ag.allclose(y, ag.selu(xa))
    y = xa.clone()
    ag.threshold_(y, 0.0, 1.0)
    _close(y, torch.threshold(x, 0.0, 1.0))
    g = ag.Generator().manual_seed(1)
    out = ag.rrelu(xa, 0.1, 0.3, True, g)
    slope = (out / xa)[xa < 0]
    assert bool(((slope >= 0.1) & (slope <= 0.3)).all())


def test_embedding_forms():
    w, wa = _pair(6, 3)
    idx = torch.tensor([[0, 2], [5, 2]])
    idxa = ag.tensor(idx.numpy())
    _close(ag.embedding(wa, idxa), torch.embedding(w, idx))
    wa.requires_grad_(True)
    ag.embedding(wa, idxa, 2).sum().backward()
    assert wa.grad[2].abs().sum().item() == 0
    big = torch.randn(5, 3, dtype=torch.float64) * 3
    biga = ag.tensor(big.numpy())
    assert ag.embedding_renorm_(biga, ag.tensor([0, 1]), 1.0, 2.0) is biga
    torch.embedding_renorm_(big, torch.tensor([0, 1]), 1.0, 2.0)
    _close(biga, big, atol=1e-6)


def test_dropout_forms():
    x = ag.ones(200, 10)
    assert ag.equal(ag.dropout(x, 0.5, False), x)
    out = ag.dropout(x, 0.5, True)
    assert set(out.reshape(-1).tolist()) <= {0.0, 2.0}
    chans = ag.feature_dropout(ag.ones(4, 50, 3), 0.5, True)
    per_channel = chans.amax(2) == chans.amin(2)
    assert bool(per_channel.all())
    out, mask = ag.native_dropout(x, 0.5, True)
    assert mask.dtype == ag.bool and ag.equal(out == 0, ~mask)
    out, mask = ag.native_dropout(x, 0.5, False)
    assert bool(mask.all()) and ag.equal(out, x)
    y = ag.ones(3, 4)
    assert ag.dropout_(y, 1.0, True) is y and y.sum().item() == 0
    assert ag.alpha_dropout(x, 0.2, False) is x
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        ag.feature_dropout(ag.ones(3), 0.5, True)


def _flat(module):
    return [p for layer in module.all_weights for p in layer]


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("bidirectional", [False, True])
def test_flat_weight_recurrences(kind, bidirectional):
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn_tanh": torch.nn.RNN,
           "rnn_relu": torch.nn.RNN}[kind]
    extra = {"nonlinearity": "relu"} if kind == "rnn_relu" else {}
    net = cls(3, 4, num_layers=2, bidirectional=bidirectional, **extra).double()
    params = _flat(net)
    params_a = [ag.tensor(p.detach().numpy(), requires_grad=True) for p in params]
    x, xa = _pair(5, 2, 3)
    d = 2 if bidirectional else 1
    h0, h0a = _pair(2 * d, 2, 4)
    c0, c0a = _pair(2 * d, 2, 4)
    hx, hxa = ([h0, c0], [h0a, c0a]) if kind == "lstm" else (h0, h0a)
    theirs = getattr(torch, kind)(x, hx, params, True, 2, 0.0, False, bidirectional, False)
    mine = getattr(ag, kind)(xa, hxa, params_a, True, 2, 0.0, False, bidirectional, False)
    _close(mine, theirs)
    # the packed overload: (data, batch_sizes, hx, params, ...)
    packed = torch.nn.utils.rnn.pack_padded_sequence(x, [5, 3])
    theirs = getattr(torch, kind)(packed.data, packed.batch_sizes, hx, params, True, 2, 0.0,
                                  False, bidirectional)
    mine = getattr(ag, kind)(ag.tensor(packed.data.numpy()),
                             ag.tensor(packed.batch_sizes.numpy()), hxa, params_a, True, 2,
                             0.0, False, bidirectional)
    _close(mine, theirs)
    theirs[0].sum().backward()
    mine[0].sum().backward()
    for p, q in zip(params_a, params):
        _close(p.grad, q.grad)


def test_batch_first_and_keywords():
    net = torch.nn.GRU(3, 4, batch_first=True).double()
    params = _flat(net)
    x, xa = _pair(2, 5, 3)
    h, ha = _pair(1, 2, 4)
    theirs = torch.gru(x, h, params, True, 1, 0.0, False, False, True)
    mine = ag.gru(input=xa, hx=ha, params=[ag.tensor(p.detach().numpy()) for p in params],
                  has_biases=True, num_layers=1, dropout=0.0, train=False,
                  bidirectional=False, batch_first=True)
    _close(mine, theirs)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        ag.gru(xa, ha)


def test_cells():
    x, xa = _pair(2, 3)
    h, ha = _pair(2, 4)
    c, ca = _pair(2, 4)
    w3, w3a = _pair(12, 3)
    w4, w4a = _pair(16, 3)
    u3, u3a = _pair(12, 4)
    u4, u4a = _pair(16, 4)
    u1, u1a = _pair(4, 4)
    w1, w1a = _pair(4, 3)
    b, ba = _pair(16)
    _close(ag.lstm_cell(xa, [ha, ca], w4a, u4a, ba, ba), torch.lstm_cell(x, [h, c], w4, u4, b, b))
    _close(ag.gru_cell(xa, ha, w3a, u3a), torch.gru_cell(x, h, w3, u3))
    _close(ag.rnn_tanh_cell(xa, ha, w1a, u1a), torch.rnn_tanh_cell(x, h, w1, u1))
    _close(ag.rnn_relu_cell(xa, ha, w1a, u1a, ba[:4]), torch.rnn_relu_cell(x, h, w1, u1, b[:4]))
    xg = ag.tensor(x.numpy(), requires_grad=True)
    assert gradcheck(lambda t: ag.gru_cell(t, ha, w3a, u3a), (xg,))

