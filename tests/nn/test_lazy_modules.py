"""The lazy layers (``LazyLinear``, ``LazyConv*``, ``LazyConvTranspose*``, ``LazyBatchNorm*``,
``LazyInstanceNorm*``) and ``UninitializedParameter``/``UninitializedBuffer``: materialised on
the first call, then the layer becomes its ordinary class, as in PyTorch."""

from __future__ import annotations

import copy

import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn.parameter import is_lazy


def test_uninitialized_parameter_refuses_use_until_materialized():
    p = nn.UninitializedParameter(dtype=ag.float64)
    assert repr(p) == "<UninitializedParameter>" and p.requires_grad and p.dtype == ag.float64
    assert p.size() == (0,) and is_lazy(p)
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized"):
        p.shape
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter"):
        p + 1
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and tuple(p.shape) == (2, 3) and p.dtype == ag.float64
    assert not is_lazy(p)


def test_uninitialized_buffer_becomes_a_tensor():
    b = nn.UninitializedBuffer()
    assert not b.requires_grad and repr(b) == "<UninitializedBuffer>"
    b.materialize(4, dtype=ag.float64)
    assert type(b) is ag.Tensor and tuple(b.shape) == (4,) and b.dtype == ag.float64


def test_uninitialized_conversions_keep_it_uninitialized():
    p = nn.UninitializedParameter()
    q = p.double()
    assert isinstance(q, nn.UninitializedParameter) and q.dtype == ag.float64
    assert copy.deepcopy(p).dtype == ag.float32


def test_lazy_linear_infers_in_features_and_becomes_linear():
    ag.manual_seed(0)
    m = nn.LazyLinear(4)
    assert repr(m) == "LazyLinear(in_features=0, out_features=4, bias=True)"
    assert m.has_uninitialized_params()
    assert all(is_lazy(v) for v in m.state_dict().values())
    weight = m.weight
    out = m(ag.randn(2, 3))
    assert type(m) is nn.Linear and m.in_features == 3 and tuple(out.shape) == (2, 4)
    assert m.weight is weight  # the same object: an optimizer built on it stays valid
    assert not m._forward_pre_hooks
    bound = 1 / 3 ** 0.5  # Linear's initialisation
    assert float(m.weight.abs().max()) <= bound


def test_lazy_module_dtype_set_before_the_dry_run():
    m = nn.LazyLinear(3).double()
    m(ag.randn(2, 2, dtype=ag.float64))
    assert m.weight.dtype == ag.float64


@pytest.mark.parametrize("cls, x, weight", [
    (nn.LazyConv1d, (2, 3, 9), (4, 3, 3)),
    (nn.LazyConv2d, (2, 3, 7, 7), (4, 3, 3, 3)),
    (nn.LazyConv3d, (3, 5, 5, 5), (4, 3, 3, 3, 3)),  # unbatched
    (nn.LazyConvTranspose1d, (2, 3, 9), (3, 4, 3)),
    (nn.LazyConvTranspose2d, (2, 3, 5, 5), (3, 4, 3, 3)),
    (nn.LazyConvTranspose3d, (1, 3, 4, 4, 4), (3, 4, 3, 3, 3)),
])
def test_lazy_convolutions(cls, x, weight):
    m = cls(4, 3)
    assert m.in_channels == 0
    m(ag.randn(*x))
    assert type(m).__name__ == cls.__name__[4:] and m.in_channels == 3
    assert tuple(m.weight.shape) == weight and tuple(m.bias.shape) == (4,)


def test_lazy_conv_groups_checked():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv1d(4, 3, groups=2)(ag.randn(1, 3, 8))


@pytest.mark.parametrize("cls, shape", [(nn.LazyBatchNorm1d, (4, 3)),
                                        (nn.LazyBatchNorm2d, (4, 3, 2, 2)),
                                        (nn.LazyBatchNorm3d, (4, 3, 2, 2, 2))])
def test_lazy_batch_norm(cls, shape):
    m = cls()
    assert is_lazy(m.running_mean) and int(m.num_batches_tracked) == 0
    m(ag.randn(*shape))
    assert type(m).__name__ == cls.__name__[4:] and m.num_features == 3
    assert tuple(m.running_mean.shape) == (3,) and int(m.num_batches_tracked) == 1


def test_lazy_instance_norm_with_bias_false_and_unbatched_input():
    m = nn.LazyInstanceNorm2d(affine=True, bias=False)
    assert m.bias is None
    m(ag.randn(3, 4, 4))  # unbatched: the channels are dimension 0
    assert type(m) is nn.InstanceNorm2d and m.num_features == 3 and m.bias is None


def test_load_state_dict_materializes_lazy_parameters():
    m = nn.LazyLinear(4)
    source = nn.Linear(5, 4)
    m.load_state_dict(source.state_dict())
    assert type(m) is nn.LazyLinear and tuple(m.weight.shape) == (4, 5)
    assert ag.equal(m.weight, source.weight)
    x = ag.randn(2, 5)
    assert ag.equal(m(x), source(x)) and type(m) is nn.Linear


def test_failed_load_leaves_the_lazy_module_uninitialized():
    m = nn.LazyLinear(4)
    bad = {"weight": ag.randn(4, 5), "bias": ag.randn(4), "extra": ag.ones(1)}
    with pytest.raises(RuntimeError, match="Unexpected key"):
        m.load_state_dict(bad)
    assert is_lazy(m.weight) and is_lazy(m.bias)


def test_lazy_state_dict_into_an_initialized_module_is_refused():
    with pytest.raises(RuntimeError, match="Can't access the shape"):
        nn.Linear(3, 4).load_state_dict(nn.LazyLinear(4).state_dict())


def test_optimizer_after_dry_run_trains():
    model = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(1))
    x, y = ag.randn(16, 3), ag.randn(16, 1)
    model(x)  # the dry run
    opt = ag.optim.SGD(model.parameters(), lr=0.1)
    first = None
    for _ in range(5):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        first = first if first is not None else float(loss)
        loss.backward()
        opt.step()
    assert float(loss) < first


def test_matches_pytorch_once_loaded():
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    t = torch.nn.LazyConv2d(4, 3, padding=1)
    t(torch.randn(1, 2, 5, 5))
    m = nn.LazyConv2d(4, 3, padding=1)
    m.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    x = torch.randn(2, 2, 5, 5)
    assert ag.allclose(m(ag.tensor(x.numpy())), ag.tensor(t(x).detach().numpy()), atol=1e-6)
    loaded = torch.nn.LazyConv2d(4, 3, padding=1)  # PyTorch's lazy conv loaded the same way
    loaded.load_state_dict(t.state_dict())
    loaded(x)
    assert repr(m) == repr(loaded)  # in_channels stays 0 after a load, as in PyTorch


def test_save_and_load_before_the_dry_run():
    import io

    buffer = io.BytesIO()
    ag.save(nn.LazyLinear(3).state_dict(), buffer)  # written as PyTorch does: class, flag
    buffer.seek(0)
    state = ag.load(buffer, weights_only=False)
    assert all(is_lazy(v) for v in state.values())
    buffer.seek(0)
    with ag.serialization.safe_globals([nn.UninitializedParameter]):
        assert is_lazy(ag.load(buffer)["weight"])
    buffer = io.BytesIO()
    ag.save(nn.LazyLinear(3), buffer)
    buffer.seek(0)
    model = ag.load(buffer, weights_only=False)
    model(ag.ones(2, 5))
    assert type(model) is nn.Linear and tuple(model.weight.shape) == (3, 5)
