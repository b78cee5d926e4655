"""``Optimizer`` base: add_param_group (errors leave everything unchanged), named parameters,
step/state_dict/load_state_dict hooks (per optimizer and global), state_dict layout against
PyTorch, resuming a run from a state dict, zero_grad."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import optim
from arraygrad.optim.optimizer import (register_optimizer_step_post_hook,
                                       register_optimizer_step_pre_hook)

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _params(n=3):
    return [ag.tensor([float(i + 1), -1.0], requires_grad=True) for i in range(n)]


def test_add_param_group_fills_defaults_and_numbers_params_in_order():
    a, b, c = _params()
    opt = optim.Adadelta([a], rho=0.8)
    opt.add_param_group({"params": (b, c), "lr": 0.5})
    assert opt.param_groups[1]["rho"] == 0.8 and opt.param_groups[1]["lr"] == 0.5
    assert opt.param_groups[1]["params"] == [b, c]  # any iterable becomes a list
    assert [g["params"] for g in opt.state_dict()["param_groups"]] == [[0], [1, 2]]


def test_add_param_group_errors_change_nothing():
    a, b, c = _params()
    opt = optim.SGD([a, b], lr=0.1)
    group = {"params": [c, a], "lr": 0.2}
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter "
                                         "group"):
        opt.add_param_group(group)
    assert len(opt.param_groups) == 1 and group == {"params": [c, a], "lr": 0.2}
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([c])
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors"):
        opt.add_param_group({"params": [c, 1.0]})
    with pytest.raises(TypeError, match="ordered collections"):
        opt.add_param_group({"params": {c}})
    with pytest.raises(ValueError, match="with/without names"):
        opt.add_param_group({"params": [("c", c)]})
    assert len(opt.param_groups) == 1


@needs_torch
def test_duplicate_parameter_error_is_pytorchs():
    t = torch.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError) as theirs:
        torch.optim.SGD([{"params": [t]}, {"params": [t]}], lr=0.1)
    a = ag.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError) as ours:
        optim.SGD([{"params": [a]}, {"params": [a]}], lr=0.1)
    assert str(ours.value) == str(theirs.value)


def test_named_parameters_keep_their_names():
    a, b, _ = _params()
    opt = optim.Adam([("w", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["params"] == [a, b]
    assert opt.param_groups[0]["param_names"] == ["w", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]
    with pytest.raises(ValueError, match="Some param names are missing"):
        optim.Adam([("w", a), b])


def test_step_hooks_run_in_order_can_replace_arguments_and_be_removed():
    (a,) = _params(1)
    opt = optim.SGD([a], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, args, kw: calls.append(("pre", o is opt)))
    h2 = opt.register_step_post_hook(lambda o, args, kw: calls.append(("post", args[1:])))
    g1 = register_optimizer_step_pre_hook(lambda o, args, kw: calls.append("global pre"))
    g2 = register_optimizer_step_post_hook(lambda o, args, kw: calls.append("global post"))
    try:
        a.grad = ag.tensor([1.0, 1.0])
        opt.step()
        assert calls == ["global pre", ("pre", True), ("post", ()), "global post"]
    finally:
        g1.remove()
        g2.remove()
    h1.remove()
    h2.remove()
    calls.clear()
    opt.step()
    assert calls == []

    # a pre hook may return new (args, kwargs): here it supplies a closure
    def supply_closure(o, args, kwargs):
        return args, {"closure": lambda: ag.tensor(7.0)}
    opt.register_step_pre_hook(supply_closure)
    assert opt.step().item() == 7.0
    bad = optim.SGD([a], lr=0.1)
    bad.register_step_pre_hook(lambda o, args, kw: "nonsense")
    with pytest.raises(RuntimeError, match="must return None or a tuple"):
        bad.step()


def test_hooks_run_for_every_optimizer_class_once():
    (a,) = _params(1)
    for opt in (optim.Adamax([a]), optim.AdamW([a]), optim.LBFGS([a], max_iter=1)):
        seen = []
        opt.register_step_pre_hook(lambda o, args, kw: seen.append(1))

        def closure():
            opt.zero_grad()
            loss = (a * a).sum()
            loss.backward()
            return loss
        opt.step(closure)
        assert seen == [1], type(opt).__name__


def test_state_dict_hooks():
    a, b, _ = _params()
    opt = optim.RAdam([a, b], lr=0.1)
    order = []
    opt.register_state_dict_pre_hook(lambda o: order.append("pre"))
    opt.register_state_dict_pre_hook(lambda o: order.append("first"), prepend=True)

    def post(o, sd):
        sd["extra"] = 1
        return sd
    opt.register_state_dict_post_hook(post)
    sd = opt.state_dict()
    assert order == ["first", "pre"] and sd["extra"] == 1

    loaded = []

    def load_pre(o, sd):
        sd = dict(sd)
        sd["param_groups"] = [dict(sd["param_groups"][0], lr=0.25)]
        return sd
    other = optim.RAdam(_params(2), lr=0.5)
    other.register_load_state_dict_pre_hook(load_pre)
    other.register_load_state_dict_post_hook(lambda o: loaded.append(o.param_groups[0]["lr"]))
    other.load_state_dict(sd)
    assert loaded == [0.25] and opt.param_groups[0]["lr"] == 0.1


def test_load_state_dict_errors_change_nothing():
    a, b, c = _params()
    opt = optim.Adam([a, b], lr=0.1)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(optim.Adam([c], lr=0.9).state_dict())
    assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["params"] == [a, b]


def test_unpickling_keeps_groups_and_state_and_drops_hooks():
    (a,) = _params(1)
    opt = optim.NAdam([a], lr=0.1)
    opt.register_step_pre_hook(print)
    a.grad = ag.tensor([1.0, 2.0])
    opt.step()
    # what unpickling does (arraygrad tensors themselves go through arraygrad.save)
    back = optim.NAdam.__new__(optim.NAdam)
    back.__setstate__(pickle.loads(pickle.dumps({k: v for k, v in opt.__getstate__().items()
                                                 if k == "defaults"})) | {
        "state": opt.state, "param_groups": opt.param_groups})
    assert back.param_groups[0]["lr"] == 0.1 and len(back._optimizer_step_pre_hooks) == 0
    assert back.state_dict()["state"][0]["step"].item() == 1.0


def test_zero_grad_set_to_none_and_to_zero():
    a, b, _ = _params()
    opt = optim.ASGD([a, b])
    (a.sum() * 2 + b.sum()).backward()
    opt.zero_grad(set_to_none=False)
    assert a.grad.tolist() == [0.0, 0.0] and b.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert a.grad is None and b.grad is None


def _train(opt_factory, steps, resume_at=None):
    """A two-layer regression trained with ``opt_factory``; if ``resume_at``, the model and
    optimizer are rebuilt from their state dicts there (an interrupted run)."""
    rng = np.random.default_rng(0)
    x = ag.tensor(rng.standard_normal((8, 3)), dtype=ag.float32)
    y = ag.tensor(rng.standard_normal((8, 1)), dtype=ag.float32)
    ag.manual_seed(0)
    model = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.Tanh(), ag.nn.Linear(4, 1))
    opt = opt_factory(model)
    for i in range(steps):
        if i == resume_at:
            msd, osd = model.state_dict(), opt.state_dict()
            ag.manual_seed(123)  # a different initialisation, overwritten by the load
            model = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.Tanh(), ag.nn.Linear(4, 1))
            model.load_state_dict(msd)
            opt = opt_factory(model)
            opt.load_state_dict(osd)
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        opt.step()
    return [p.detach().numpy().copy() for p in model.parameters()]


FACTORIES = {
    "adadelta": lambda m: optim.Adadelta(m.parameters(), weight_decay=0.01),
    "adamax": lambda m: optim.Adamax(m.parameters(), lr=0.01),
    "nadam": lambda m: optim.NAdam([{"params": m[0].parameters()},
                                    {"params": m[2].parameters(), "lr": 0.05}], lr=0.01),
    "radam": lambda m: optim.RAdam(m.parameters(), lr=0.05, decoupled_weight_decay=True,
                                   weight_decay=0.1),
    "asgd": lambda m: optim.ASGD(m.parameters(), lr=0.05, t0=3),
    "rprop": lambda m: optim.Rprop(m.parameters()),
    "sgd": lambda m: optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=True),
    "adamw": lambda m: optim.AdamW(m.parameters(), lr=0.01, amsgrad=True),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_interrupted_and_resumed_run_equals_an_uninterrupted_one(name):
    full = _train(FACTORIES[name], 12)
    resumed = _train(FACTORIES[name], 12, resume_at=5)
    for a, b in zip(full, resumed):
        np.testing.assert_array_equal(a, b)


@needs_torch
def test_state_dict_loads_into_torch_and_back():
    """The layout is PyTorch's: an arraygrad state dict (tensors converted) loads into a torch
    optimizer and both continue identically, and the other way round."""
    w0 = np.array([0.5, -1.0, 2.0])
    grads = np.random.default_rng(3).standard_normal((6, 3))
    p = ag.tensor(w0, dtype=ag.float64, requires_grad=True)
    opt = optim.NAdam([p], lr=0.1, weight_decay=0.1)
    for g in grads[:3]:
        p.grad = ag.tensor(g, dtype=ag.float64)
        opt.step()
    sd = opt.state_dict()
    tsd = {"state": {k: {n: torch.tensor(v.numpy()) for n, v in s.items()}
                     for k, s in sd["state"].items()},
           "param_groups": sd["param_groups"]}
    tp = torch.tensor(p.detach().numpy(), requires_grad=True)
    topt = torch.optim.NAdam([tp], lr=1.0)
    topt.load_state_dict(tsd)
    back = optim.NAdam([ag.tensor(p.detach().numpy(), requires_grad=True)])
    back.load_state_dict({"state": {k: {n: ag.tensor(v.numpy()) for n, v in s.items()}
                                    for k, s in topt.state_dict()["state"].items()},
                          "param_groups": topt.state_dict()["param_groups"]})
    q = back.param_groups[0]["params"][0]
    for g in grads[3:]:
        p.grad = ag.tensor(g, dtype=ag.float64)
        q.grad = ag.tensor(g, dtype=ag.float64)
        tp.grad = torch.tensor(g)
        opt.step()
        back.step()
        topt.step()
    np.testing.assert_allclose(q.detach().numpy(), tp.detach().numpy(), rtol=1e-12)
    # loading cast the float32 ``mu_product`` to the parameter's float64 (PyTorch's policy;
    # ``step`` is kept), so the never-reloaded optimizer differs by float32 rounding only
    assert back.state[q]["mu_product"].dtype == ag.float64
    assert back.state[q]["step"].dtype == ag.float32
    np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-8)
