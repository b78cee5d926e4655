"""Modules on the meta device: built there (``with device("meta")``, ``device="meta"``,
``.to("meta")``), materialised by ``to_empty`` then ``reset_parameters`` or by
``load_state_dict(assign=True)``, ``skip_init``, and a meta module as ``functional_call``'s
stateless template under ``vmap`` (the model-ensembling tutorial's pattern)."""

from __future__ import annotations

import copy
import warnings

import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.func import functional_call, stack_module_state, vmap


def _net():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 3))


def test_device_context_makes_factories_allocate_there_and_restores():
    with ag.device("meta") as d:
        assert d == ag.device("meta") and ag.get_default_device() == d
        net = _net()
        with ag.device("cpu"):
            assert ag.zeros(1).device.type == "cpu"
        assert ag.zeros(1).is_meta
    assert ag.get_default_device().type == "cpu" and not ag.zeros(1).is_meta
    assert all(t.is_meta for t in net.state_dict().values())
    with pytest.raises(ZeroDivisionError), ag.device("meta"):
        1 / 0
    assert ag.get_default_device().type == "cpu"  # restored after an error too


def test_to_empty_then_reset_parameters_materialises():
    with ag.device("meta"):
        net = _net()
    assert net.to_empty(device="cpu") is net
    params = dict(net.named_parameters())
    assert all(p.device.type == "cpu" and isinstance(p, nn.Parameter) and p.requires_grad
               for p in params.values())
    assert net[1].num_batches_tracked.dtype is ag.int64
    for m in net.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()
    assert net[1].weight.tolist() == [1.0] * 8 and net[1].running_var.tolist() == [1.0] * 8
    bound = 1 / 4 ** 0.5  # Linear(4, 8)'s kaiming-uniform bound
    assert float(net[0].weight.abs().max()) <= bound
    assert net(ag.randn(5, 4)).shape == (5, 3)


def test_to_empty_recurse_false_leaves_children():
    net = _net().to("meta")
    net.to_empty(device="cpu", recurse=False)
    assert net[0].weight.is_meta  # the Sequential holds no tensors of its own


def test_load_state_dict_assign_takes_the_checkpoints_tensors():
    source = _net()
    with ag.device("meta"):
        net = _net()
    result = net.load_state_dict(source.state_dict(), assign=True)
    assert not result.missing_keys and not result.unexpected_keys
    for (name, p), q in zip(net.named_parameters(), source.parameters()):
        assert isinstance(p, nn.Parameter) and p.requires_grad and ag.equal(p, q), name
    assert ag.equal(net[1].running_mean, source[1].running_mean)
    x = ag.randn(6, 4)
    assert ag.allclose(net.eval()(x), source.eval()(x))


def test_copying_into_meta_parameters_warns_it_is_a_no_op():
    with ag.device("meta"):
        net = nn.Linear(3, 2)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        net.load_state_dict(nn.Linear(3, 2).state_dict())
    assert [str(w.message).split(":")[0] for w in seen] == ["for weight", "for bias"]
    assert all("copying from a non-meta parameter in the checkpoint to a meta parameter in the "
               "current model, which is a no-op. (Did you mean to pass `assign=True`"
               in str(w.message) and w.category is UserWarning for w in seen)
    assert net.weight.is_meta


def test_copying_out_of_a_meta_checkpoint_is_a_load_error():
    with pytest.raises(RuntimeError, match="Cannot copy out of meta tensor; no data!"):
        nn.Linear(3, 2).load_state_dict(nn.Linear(3, 2, device="meta").state_dict())


def test_skip_init_builds_on_meta_then_empties_on_the_device():
    calls = []

    class Counted(nn.Linear):
        def reset_parameters(self):
            calls.append(self.weight.device.type)
            super().reset_parameters()

    m = nn.utils.skip_init(Counted, 5, 2)
    assert calls == ["meta"] and m.weight.device.type == "cpu" and m.weight.shape == (2, 5)
    assert nn.utils.skip_init(nn.Linear, 5, 2, device="meta").weight.is_meta


def test_ensembling_with_a_meta_template_matches_the_loop():
    ag.manual_seed(0)
    models = [_net().eval() for _ in range(4)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert all(t.is_meta for t in base.state_dict().values())

    def fmodel(p, b, x):
        return functional_call(base, (p, b), (x,))

    xs = ag.randn(4, 6, 4)
    looped = ag.stack([m(x) for m, x in zip(models, xs)])
    assert ag.allclose(vmap(fmodel)(params, buffers, xs), looped, atol=1e-6)
    shared = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, xs[0])
    assert ag.allclose(shared, ag.stack([m(xs[0]) for m in models]), atol=1e-6)
    # gradients reach the stacked parameters, shaped as them
    vmap(fmodel)(params, buffers, xs).sum().backward()
    assert params["0.weight"].grad.shape == (4, 8, 4) and not params["0.weight"].grad.is_meta
    assert all(t.is_meta for t in base.state_dict().values())  # the template stays a template


def test_meta_modules_forward_without_warnings():
    with ag.device("meta"):
        net = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                             dim_feedforward=16, batch_first=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = net(ag.randn(2, 5, 8, device="meta"), ag.randn(2, 3, 8, device="meta"))
    assert out.is_meta and out.shape == (2, 3, 8)
