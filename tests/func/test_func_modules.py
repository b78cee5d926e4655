"""``arraygrad.func.functional_call`` and ``stack_module_state``: a module as a function of its
parameters (with ``grad`` and ``jacrev``), an ensemble of 3 models, errors, and ``torch.func``
where PyTorch is installed."""

import numpy as np
import pytest
from func_helpers import arr, assert_trees_close, needs_torch, t64, torch

import arraygrad as ag
from arraygrad import nn
from arraygrad.func import functional_call, grad, jacrev, stack_module_state


def _net_class(lib_nn):
    """Linear, batch norm (a buffer), tanh, linear: one class per library's ``nn``."""

    class Net(lib_nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = lib_nn.Linear(3, 4)
            self.bn = lib_nn.BatchNorm1d(4)
            self.l2 = lib_nn.Linear(4, 2)

        def forward(self, x):
            return self.l2(self.bn(self.l1(x)).tanh())

    return Net


_Net = _net_class(nn)


def _net(seed):
    ag.manual_seed(seed)
    return _Net().double().eval()


def _batch():
    return t64(np.random.default_rng(0).normal(size=(5, 3)))


def test_functional_call_is_the_stateless_call_under_pytorch_names():
    from arraygrad.nn.utils import stateless

    model = _net(0)
    params = {k: v.detach() * 2 for k, v in model.named_parameters()}
    x = _batch()
    out = functional_call(model, params, (x,))
    same = stateless.functional_call(model, params, (x,))
    np.testing.assert_allclose(arr(out), arr(same))
    # a tuple of dicts, args as one tensor, kwargs
    buffers = dict(model.named_buffers())
    out2 = functional_call(model, parameter_and_buffer_dicts=(params, buffers), args=x)
    np.testing.assert_allclose(arr(out2), arr(out))
    with pytest.raises(ValueError, match="appeared in multiple dictionaries"):
        functional_call(model, (params, params), (x,))


def test_grad_with_functional_call_matches_backward():
    model = _net(1)
    x = _batch()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, data):
        return (functional_call(model, p, (data,)) ** 2).mean()

    grads = grad(loss)(params, x)
    assert set(grads) == set(params)
    assert all(p.grad is None for p in model.parameters())
    (model(x) ** 2).mean().backward()
    for name, p in model.named_parameters():
        np.testing.assert_allclose(arr(grads[name]), arr(p.grad), atol=1e-12)


def test_per_sample_gradients_by_a_loop_over_grad():
    model = _net(2)
    x = _batch()
    params = {k: v.detach() for k, v in model.named_parameters()}

    def sample_loss(p, sample):
        return functional_call(model, p, (sample.unsqueeze(0),)).pow(2).sum()

    per_sample = [grad(sample_loss)(params, x[i]) for i in range(5)]
    # eval-mode batch norm is per sample, so the batch loss's gradient is their sum
    total = grad(lambda p: functional_call(model, p, (x,)).pow(2).sum())(params)
    for name in params:
        np.testing.assert_allclose(sum(arr(g[name]) for g in per_sample), arr(total[name]),
                                   atol=1e-12)


def test_jacrev_of_model_output_wrt_params():
    model = _net(3)
    x = _batch()[:1]
    params = {k: v.detach() for k, v in model.named_parameters()}
    jac = jacrev(lambda p: functional_call(model, p, (x,)))(params)
    assert tuple(jac["l2.bias"].shape) == (1, 2, 2)
    np.testing.assert_allclose(arr(jac["l2.bias"][0]), np.eye(2), atol=1e-12)


def test_stack_module_state_ensemble_of_three():
    models = [_net(s) for s in (10, 11, 12)]
    params, buffers = stack_module_state(models)
    assert set(params) == {"l1.weight", "l1.bias", "bn.weight", "bn.bias", "l2.weight",
                           "l2.bias"}
    assert set(buffers) == {"bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}
    assert tuple(params["l1.weight"].shape) == (3, 4, 3)
    for p in params.values():  # new leaves that require grad, unrelated to the models'
        assert p.requires_grad and p.is_leaf
    for b in buffers.values():
        assert not b.requires_grad
    x = _batch()
    for i, model in enumerate(models):
        mine = ({k: v[i] for k, v in params.items()}, {k: v[i] for k, v in buffers.items()})
        out = functional_call(models[0], mine, (x,))
        np.testing.assert_allclose(arr(out), arr(model(x)), atol=1e-12)
    # stacked params are leaves an optimizer can train; the models get no gradient
    total = None
    for i in range(3):
        mine = ({k: v[i] for k, v in params.items()}, {k: v[i] for k, v in buffers.items()})
        out = functional_call(models[0], mine, (x,)).sum()
        total = out if total is None else total + out
    total.backward()
    assert params["l1.weight"].grad is not None
    assert all(p.grad is None for m in models for p in m.parameters())


def test_stack_module_state_errors():
    with pytest.raises(RuntimeError, match="Expected at least one model, got 0."):
        stack_module_state([])
    a, b = _net(0), _net(1)
    b.train()
    with pytest.raises(RuntimeError, match="Expected all models to have the same training/eval"):
        stack_module_state([a, b])
    with pytest.raises(RuntimeError, match="Expected all models to be of the same class."):
        stack_module_state([nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 2))])
    c, d = nn.Linear(2, 2), nn.Linear(2, 2)
    d.bias.requires_grad_(False)
    with pytest.raises(RuntimeError, match="Expected bias from each model to have the same "
                                           ".requires_grad"):
        stack_module_state([c, d])
    params, _ = stack_module_state([d, d])
    assert not params["bias"].requires_grad and params["weight"].requires_grad


@needs_torch
def test_against_torch_func_stack_and_functional_call_grad():
    from torch.func import functional_call as tcall, grad as tgrad, stack_module_state as tstack

    ours = [_net(s) for s in (20, 21, 22)]
    TorchNet = _net_class(torch.nn)
    theirs = [TorchNet().double().eval() for _ in range(3)]
    for o, t in zip(ours, theirs):
        with torch.no_grad():
            for (name, p), (_, q) in zip(o.named_parameters(), t.named_parameters()):
                q.copy_(torch.tensor(arr(p)))
    params, buffers = stack_module_state(ours)
    tparams, tbuffers = tstack(theirs)
    assert_trees_close((params, buffers), (tparams, tbuffers))
    x = _batch()
    tx = torch.tensor(arr(x))

    def loss(p, b, data):
        return functional_call(ours[0], (p, b), (data,)).tanh().sum()

    def tloss(p, b, data):
        return tcall(theirs[0], (p, b), (data,)).tanh().sum()

    for i in range(3):
        mine = {k: v[i] for k, v in params.items()}, {k: v[i] for k, v in buffers.items()}
        tmine = {k: v[i] for k, v in tparams.items()}, {k: v[i] for k, v in tbuffers.items()}
        assert_trees_close(grad(loss)(*mine, x), tgrad(tloss)(*tmine, tx), atol=1e-10)
