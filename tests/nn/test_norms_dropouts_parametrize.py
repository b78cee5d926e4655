"""InstanceNorm, RMSNorm, LocalResponseNorm, BatchNorm3d, SyncBatchNorm, the channel and alpha
dropouts, ``nn.utils.parametrize`` and weight/spectral norm (both spellings).

References without PyTorch: formulas written out with NumPy; with PyTorch (skipped without
it): its layers, state_dicts loaded into ours, same outputs and gradients.
"""

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
import arraygrad.nn as nn
import arraygrad.nn.functional as F
from arraygrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
RNG = np.random.default_rng(7)


def _x(*shape):
    return RNG.normal(size=shape)


# -- values against formulas -----------------------------------------------------------------

def test_instance_norm_normalises_each_channel_of_each_sample():
    x = _x(2, 3, 5)
    out = F.instance_norm(ag.tensor(x)).numpy()
    mean = x.mean(-1, keepdims=True)
    var = x.var(-1, keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), atol=1e-12)


def test_instance_norm_running_stats_average_the_batch():
    x = _x(4, 2, 6)
    rm, rv = ag.zeros(2, dtype=ag.float64), ag.ones(2, dtype=ag.float64)
    F.instance_norm(ag.tensor(x), rm, rv, momentum=0.5)
    np.testing.assert_allclose(rm.numpy(), 0.5 * x.mean(-1).mean(0), atol=1e-12)
    np.testing.assert_allclose(rv.numpy(), 0.5 + 0.5 * x.var(-1, ddof=1).mean(0), atol=1e-12)
    layer = nn.InstanceNorm1d(2, track_running_stats=True).double().eval()
    layer.running_mean.copy_(rm)
    layer.running_var.copy_(rv)
    out = layer(ag.tensor(x)).numpy()
    np.testing.assert_allclose(out, (x - rm.numpy()[:, None]) / np.sqrt(rv.numpy()[:, None] + 1e-5),
                               atol=1e-12)


def test_instance_norm_unbatched_and_checks():
    layer = nn.InstanceNorm2d(3, affine=True)
    assert layer(ag.randn(3, 4, 4)).shape == (3, 4, 4)
    with pytest.raises(ValueError, match="expected 3D or 4D input"):
        layer(ag.randn(3, 4))
    with pytest.raises(ValueError, match="to match num_features"):
        layer(ag.randn(1, 2, 4, 4))
    with pytest.warns(UserWarning, match="does not match num_features"):
        nn.InstanceNorm1d(5)(ag.randn(2, 3, 4))
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]
    assert nn.InstanceNorm1d(3).state_dict() == {}


def test_rms_norm_formula_and_default_eps():
    x = _x(3, 4)
    w = _x(4)
    out = F.rms_norm(ag.tensor(x), (4,), ag.tensor(w)).numpy()
    eps = np.finfo(np.float64).eps
    np.testing.assert_allclose(out, x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * w,
                               atol=1e-12)
    layer = nn.RMSNorm([3, 4])
    assert layer.weight.shape == (3, 4) and layer.weight.sum().item() == 12
    with pytest.raises(RuntimeError, match="normalized_shape"):
        F.rms_norm(ag.randn(2, 5), (4,))


def test_local_response_norm_by_direct_loop():
    x = _x(2, 5, 3)
    size, alpha, beta, k = 3, 0.2, 0.75, 2.0
    out = F.local_response_norm(ag.tensor(x), size, alpha, beta, k).numpy()
    want = np.empty_like(x)
    for c in range(5):
        lo, hi = max(0, c - size // 2), min(5, c + (size - 1) // 2 + 1)
        window = (x[:, lo:hi] ** 2).sum(1)
        want[:, c] = x[:, c] / (k + alpha * window / size) ** beta
    np.testing.assert_allclose(out, want, atol=1e-12)
    with pytest.raises(ValueError, match="3D or higher"):
        F.local_response_norm(ag.randn(2, 3), 2)


def test_norm_gradients_twice():
    x = ag.tensor(_x(2, 3, 4), requires_grad=True)
    w = ag.tensor(_x(3), requires_grad=True)
    for fn in (lambda x, w: F.instance_norm(x, weight=w),
               lambda x, w: F.rms_norm(x, (4,), None) * w.sum(),
               lambda x, w: F.local_response_norm(x, 2, alpha=0.4) * w.sum()):
        assert gradcheck(fn, (x, w))
        assert gradgradcheck(fn, (x, w))


def test_batchnorm3d_and_sync_batchnorm():
    bn = nn.BatchNorm3d(2)
    assert bn(ag.randn(2, 2, 3, 3, 3)).shape == (2, 2, 3, 3, 3)
    with pytest.raises(ValueError, match="expected 5D input"):
        bn(ag.randn(2, 2, 3))
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
    model[1].eval()
    synced = nn.SyncBatchNorm.convert_sync_batchnorm(model)
    assert isinstance(synced[1], nn.SyncBatchNorm) and synced[1].weight is model[1].weight
    assert synced[1].training is False and synced[1].running_mean is model[1].running_mean
    assert set(synced.state_dict()) == set(model.state_dict())


# -- dropouts ----------------------------------------------------------------------------------

def test_channel_dropout_zeroes_whole_channels_and_scales():
    ag.manual_seed(0)
    x = ag.ones(50, 8, 6, dtype=ag.float64)
    out = F.dropout1d(x, p=0.25)
    per_channel = out.numpy()
    assert set(np.unique(per_channel)) <= {0.0, 1 / 0.75}
    assert (per_channel.min(-1) == per_channel.max(-1)).all()  # whole channels
    kept = (per_channel[:, :, 0] > 0).mean()
    assert 0.65 < kept < 0.85
    out2 = F.dropout2d(ag.ones(20, 4, 3, 3), p=0.5)
    assert (out2.numpy().reshape(20, 4, -1).std(-1) == 0).all()
    out3 = F.dropout3d(ag.ones(4, 2, 2, 2), p=0.5)  # unbatched (C, D, H, W)
    assert (out3.numpy().reshape(4, -1).std(-1) == 0).all()
    y = ag.ones(3, 4)
    assert F.dropout1d(y, 0.5, training=False) is y
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input"):
        F.dropout1d(ag.ones(2, 2, 2, 2))
    with pytest.warns(UserWarning, match="Received a 3D input to dropout2d"):
        F.dropout2d(ag.ones(2, 3, 4))
    with pytest.raises(ValueError, match="between 0 and 1"):
        nn.Dropout2d(1.5)


def test_channel_dropout_gradient_is_the_mask():
    ag.manual_seed(1)
    x = ag.ones(4, 6, 5, requires_grad=True)
    out = F.dropout1d(x, 0.5)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


def test_alpha_dropout_keeps_selu_statistics():
    ag.manual_seed(2)
    x = ag.randn(200000, dtype=ag.float64)
    out = F.alpha_dropout(x, 0.2, training=True)
    assert abs(out.mean().item()) < 0.02 and abs(out.std().item() - 1) < 0.02
    dropped = out.numpy()[np.isclose(out.numpy(), out.numpy().min())]
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False
    layer = nn.FeatureAlphaDropout(0.5)
    y = layer(ag.ones(30, 4, 5)).numpy()
    assert (y.std(-1) < 1e-12).all()
    layer.eval()
    z = ag.ones(2, 2)
    assert layer(z) is z and dropped.size > 0


# -- parametrizations ----------------------------------------------------------------------------

class Symmetric(nn.Module):
    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)


def test_register_and_remove_parametrization():
    layer = nn.Linear(3, 3)
    nn.utils.parametrize.register_parametrization(layer, "weight", Symmetric())
    w = layer.weight
    assert ag.equal(w, w.T) and type(layer).__name__ == "ParametrizedLinear"
    assert nn.utils.parametrize.is_parametrized(layer, "weight")
    assert set(layer.state_dict()) == {"bias", "parametrizations.weight.original"}
    layer(ag.randn(2, 3)).sum().backward()
    assert layer.parametrizations.weight.original.grad is not None
    with nn.utils.parametrize.cached():
        assert layer.weight is layer.weight
    nn.utils.parametrize.remove_parametrizations(layer, "weight")
    assert type(layer) is nn.Linear and isinstance(layer.weight, nn.Parameter)
    assert ag.equal(layer.weight, layer.weight.T)
    with pytest.raises(ValueError, match="does not have a parametrization"):
        nn.utils.parametrize.remove_parametrizations(layer, "weight")
    with pytest.raises(ValueError, match="does not have a parameter"):
        nn.utils.parametrize.register_parametrization(layer, "nope", Symmetric())


def test_parametrization_shape_change_needs_unsafe():
    class Half(nn.Module):
        def forward(self, X):
            return X[:1]

    layer = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="may not change the shape"):
        nn.utils.parametrize.register_parametrization(layer, "weight", Half())
    assert type(layer) is nn.Linear and "weight" in layer._parameters  # nothing changed


def test_weight_norm_parametrization_values():
    layer = nn.utils.parametrizations.weight_norm(nn.Linear(4, 3).double())
    g = layer.parametrizations.weight.original0
    v = layer.parametrizations.weight.original1
    assert g.shape == (3, 1)
    np.testing.assert_allclose(layer.weight.detach().numpy(),
                               v.detach().numpy() * g.detach().numpy()
                               / np.linalg.norm(v.detach().numpy(), axis=1, keepdims=True))


def test_spectral_norm_makes_the_top_singular_value_one():
    ag.manual_seed(3)
    layer = nn.utils.parametrizations.spectral_norm(nn.Linear(6, 5).double())
    for _ in range(30):
        layer(ag.randn(1, 6, dtype=ag.float64))
    top = np.linalg.svd(layer.weight.detach().numpy(), compute_uv=False)[0]
    assert top == pytest.approx(1.0, abs=1e-6)


def test_legacy_weight_norm_and_removal():
    with pytest.warns(FutureWarning):
        layer = nn.utils.weight_norm(nn.Linear(3, 2))
    assert set(layer.state_dict()) == {"bias", "weight_g", "weight_v"}
    out = layer(ag.ones(1, 3))
    nn.utils.remove_weight_norm(layer)
    assert set(layer.state_dict()) == {"bias", "weight"}
    assert ag.allclose(layer(ag.ones(1, 3)), out)


# -- against PyTorch ---------------------------------------------------------------------------

def _port(theirs, ours):
    ours.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def _same(theirs, ours, x, steps=1):
    for _ in range(steps):
        tx, ax = torch.tensor(x, requires_grad=True), ag.tensor(x, requires_grad=True)
        to, ao = theirs(tx), ours(ax)
        g = np.cos(np.arange(to.numel())).reshape(tuple(to.shape))
        to.backward(torch.tensor(g))
        ao.backward(ag.tensor(g))
        np.testing.assert_allclose(ao.detach().numpy(), to.detach().numpy(), atol=1e-10)
        np.testing.assert_allclose(ax.grad.numpy(), tx.grad.numpy(), atol=1e-10)
    for name, p in theirs.named_parameters():
        np.testing.assert_allclose(ours.get_parameter(name).grad.numpy(), p.grad.numpy(),
                                   atol=1e-9)
    for name, b in theirs.state_dict().items():
        np.testing.assert_allclose(ours.state_dict()[name].numpy(), b.numpy(), atol=1e-12)


@needs_torch
@pytest.mark.parametrize("name,kwargs,shape", [
    ("InstanceNorm1d", {"num_features": 3}, (2, 3, 5)),
    ("InstanceNorm1d", {"num_features": 3, "affine": True, "track_running_stats": True}, (2, 3, 5)),
    ("InstanceNorm2d", {"num_features": 2, "affine": True}, (2, 4, 3)),
    ("InstanceNorm3d", {"num_features": 2, "track_running_stats": True, "momentum": None},
     (1, 2, 3, 2, 2)),
    ("RMSNorm", {"normalized_shape": (3, 4)}, (2, 3, 4)),
    ("RMSNorm", {"normalized_shape": 4, "eps": 1e-3, "elementwise_affine": False}, (5, 4)),
    ("LocalResponseNorm", {"size": 3, "alpha": 0.1, "beta": 0.6, "k": 1.5}, (2, 5, 3, 2)),
    ("LocalResponseNorm", {"size": 4}, (2, 6, 3)),
    ("BatchNorm3d", {"num_features": 2}, (3, 2, 2, 2, 2)),
    ("SyncBatchNorm", {"num_features": 3}, (4, 3, 5)),
])
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_layers_match_torch(name, kwargs, shape, mode):
    theirs = getattr(torch.nn, name)(**kwargs).double()
    ours = getattr(nn, name)(**kwargs).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _port(theirs, ours)
    getattr(theirs, mode)()
    getattr(ours, mode)()
    if name == "SyncBatchNorm" and mode == "train":
        theirs = torch.nn.BatchNorm1d(**kwargs).double()  # torch's needs a process group
        _port(theirs, ours)
    _same(theirs, ours, _x(*shape), steps=2)


@needs_torch
@pytest.mark.parametrize("kind", ["parametrizations.weight_norm", "parametrizations.spectral_norm",
                                  "weight_norm", "spectral_norm"])
@pytest.mark.parametrize("layer", ["linear", "conv", "convT"])
def test_weight_and_spectral_norm_match_torch(kind, layer):
    make = {"linear": lambda L: L.Linear(4, 3), "conv": lambda L: L.Conv1d(2, 3, 2),
            "convT": lambda L: L.ConvTranspose2d(2, 3, 2)}[layer]
    if layer == "convT" and not hasattr(nn, "ConvTranspose2d"):
        pytest.skip("no ConvTranspose2d")
    x = _x(2, 4) if layer == "linear" else _x(2, 2, 5) if layer == "conv" else _x(1, 2, 3, 3)

    def wrap(L, module):
        fn = L.utils
        for part in kind.split("."):
            fn = getattr(fn, part)
        return fn(module)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        theirs = wrap(torch.nn, make(torch.nn).double())
        ours = wrap(nn, make(nn).double())
    assert sorted(ours.state_dict()) == sorted(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    _port(theirs, ours)
    _same(theirs, ours, x, steps=3)
    theirs.eval()
    ours.eval()
    _same(theirs, ours, x, steps=1)


@needs_torch
def test_alpha_dropout_constants_match_torch():
    torch.manual_seed(0)
    t = torch.nn.functional.alpha_dropout(torch.zeros(20000, dtype=torch.float64), 0.3, True)
    ours = F.alpha_dropout(ag.zeros(20000, dtype=ag.float64), 0.3, True).numpy()
    assert sorted(set(np.round(t.numpy(), 12))) == sorted(set(np.round(ours, 12)))
