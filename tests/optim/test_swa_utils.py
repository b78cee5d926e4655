"""``optim.swa_utils``: AveragedModel (SWA and EMA, with and without buffers), the averaging
functions, update_bn and SWALR, against PyTorch's numbers; and
``optim.swap_in_optimizer_params_and_state``."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.optim import swa_utils

RNG = np.random.default_rng(0)
X = RNG.standard_normal((6, 4, 3)).astype(np.float32)  # 6 batches of 4 samples


def _net(lib):
    lib.manual_seed(0)
    net = lib.nn.Sequential(lib.nn.Linear(3, 5), lib.nn.BatchNorm1d(5), lib.nn.ReLU(),
                            lib.nn.Linear(5, 2))
    with lib.no_grad():  # the same starting weights in both libraries
        for i, p in enumerate(net.parameters()):
            p.copy_(lib.tensor(np.random.default_rng(10 + i).standard_normal(tuple(p.shape))
                               .astype(np.float32)))
    return net


def _averaged(lib, make, steps=4):
    net = _net(lib)
    avg = make(lib, net)
    opt = lib.optim.SGD(net.parameters(), lr=0.1)
    for i in range(steps):
        opt.zero_grad()
        net(lib.tensor(X[i])).pow(2).mean().backward()
        opt.step()
        avg.update_parameters(net)
    return avg


MAKERS = {
    "swa": lambda lib, net: lib.optim.swa_utils.AveragedModel(net),
    "ema-multi": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)),
    "ema-single": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, avg_fn=lib.optim.swa_utils.get_ema_avg_fn(0.8)),
    "swa-single": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, avg_fn=lib.optim.swa_utils.get_swa_avg_fn()),
    "ema-buffers": lambda lib, net: lib.optim.swa_utils.AveragedModel(
        net, multi_avg_fn=lib.optim.swa_utils.get_ema_multi_avg_fn(0.9), use_buffers=True),
    "swa-buffers": lambda lib, net: lib.optim.swa_utils.AveragedModel(net, use_buffers=True),
}


@pytest.mark.parametrize("kind", list(MAKERS))
def test_averaged_model_matches_pytorch(kind):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    ours, theirs = _averaged(ag, MAKERS[kind]), _averaged(torch, MAKERS[kind])
    assert int(ours.n_averaged) == int(theirs.n_averaged) == 4
    ours_sd, theirs_sd = ours.state_dict(), theirs.state_dict()
    assert list(ours_sd) == list(theirs_sd)
    for key in ours_sd:
        np.testing.assert_allclose(ours_sd[key].numpy(), theirs_sd[key].numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=key)
    x = X[5]
    ours.eval(), theirs.eval()
    np.testing.assert_allclose(ours(ag.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_swa_is_the_mean_of_the_models_seen():
    net = ag.nn.Linear(2, 1)
    avg = swa_utils.AveragedModel(net)
    seen = []
    for v in (1.0, 2.0, 6.0):
        with ag.no_grad():
            net.weight.fill_(v)
        avg.update_parameters(net)
        seen.append(v)
    assert avg.module.weight.tolist() == [[3.0, 3.0]]


def test_averaging_function_checks():
    with pytest.raises(ValueError, match="Invalid decay value"):
        swa_utils.get_ema_multi_avg_fn(1.5)
    with pytest.raises(ValueError, match="Invalid decay value"):
        swa_utils.get_ema_avg_fn(-0.1)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn"):
        swa_utils.AveragedModel(ag.nn.Linear(1, 1), avg_fn=swa_utils.get_swa_avg_fn(),
                                multi_avg_fn=swa_utils.get_swa_multi_avg_fn())


def test_integer_parameters():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for lib in (ag, torch):
        mine, theirs = [lib.tensor([10, 21])], [lib.tensor([20, 40])]
        lib.optim.swa_utils.get_ema_multi_avg_fn(0.5)(mine, theirs, 0)
        assert mine[0].tolist() == [15, 30]  # the float average, truncated
        with pytest.raises(RuntimeError):  # a float step into an integer tensor
            lib.optim.swa_utils.get_swa_multi_avg_fn()(mine, theirs, 1)


def test_update_bn_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    stats = []
    for lib in (ag, torch):
        net = _net(lib)
        net.eval()
        loader = [(lib.tensor(b), 0) for b in X]
        lib.optim.swa_utils.update_bn(loader, net)
        bn = net[1]
        assert not net.training and bn.momentum == 0.1  # restored
        stats.append((bn.running_mean.numpy(), bn.running_var.numpy(),
                      int(bn.num_batches_tracked)))
    np.testing.assert_allclose(stats[0][0], stats[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(stats[0][1], stats[1][1], rtol=1e-5, atol=1e-6)
    assert stats[0][2] == stats[1][2] == 6


def test_update_bn_is_a_cumulative_average():
    net = ag.nn.BatchNorm1d(3)
    batches = [ag.tensor(b[:, :3]) for b in X[:3]]
    swa_utils.update_bn(batches, net)
    expected = np.mean([b.numpy().mean(0) for b in batches], axis=0)
    np.testing.assert_allclose(net.running_mean.numpy(), expected, rtol=1e-5)


@pytest.mark.parametrize("kwargs", [dict(swa_lr=0.05), dict(swa_lr=0.5, anneal_epochs=3,
                                                             anneal_strategy="linear"),
                                    dict(swa_lr=[0.01, 0.2], anneal_epochs=0),
                                    dict(swa_lr=0.05, anneal_epochs=4, anneal_strategy="cos")])
def test_swalr_matches_pytorch(kwargs):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    lrs = []
    for lib in (ag, torch):
        a, b = lib.zeros(1, requires_grad=True), lib.zeros(1, requires_grad=True)
        opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.3}], lr=0.1)
        cosine = lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=20)
        swa = lib.optim.swa_utils.SWALR(opt, **kwargs)
        seen = []
        for epoch in range(14):
            opt.step()
            (swa if epoch >= 5 else cosine).step()
            seen.append([g["lr"] for g in opt.param_groups])
        lrs.append(seen)
        state = swa.state_dict()
        assert "anneal_func" not in state and "optimizer" not in state
    np.testing.assert_allclose(np.array(lrs[0]), np.array(lrs[1]), rtol=1e-12)


def test_swalr_checks_and_round_trip():
    opt = ag.optim.SGD([ag.zeros(1, requires_grad=True)], lr=0.1)
    with pytest.raises(ValueError, match="anneal_strategy must be one of"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_strategy="step")
    with pytest.raises(ValueError, match="anneal_epochs must be equal or greater than 0"):
        swa_utils.SWALR(opt, swa_lr=0.1, anneal_epochs=-1)
    sched = swa_utils.SWALR(opt, swa_lr=0.01, anneal_strategy="linear")
    other = swa_utils.SWALR(opt, swa_lr=0.01)
    other.load_state_dict(sched.state_dict())
    assert other.anneal_func is other._linear_anneal


def test_swap_in_optimizer_params_and_state():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    results = []
    for lib in (ag, torch):
        model = lib.nn.Linear(3, 2)
        with lib.no_grad():
            model.weight.copy_(lib.tensor([[0.1, -0.2, 0.3], [0.5, 0.4, -0.6]]))
            model.bias.copy_(lib.tensor([0.05, -0.05]))
        opt = lib.optim.Adam(model.parameters(), lr=0.1)
        model(lib.ones(1, 3)).sum().backward()
        opt.step()
        saved = opt.state_dict()
        live_weight = model.weight.detach().clone()
        copies = {n: p.detach().clone().requires_grad_() for n, p in model.named_parameters()}
        copy_state = {"state": {k: {kk: vv.clone() for kk, vv in v.items()}
                                for k, v in saved["state"].items()},
                      "param_groups": [dict(g, lr=0.5) for g in saved["param_groups"]]}
        for p in copies.values():
            p.grad = lib.ones_like(p)
        with lib.optim.swap_in_optimizer_params_and_state(opt, copies, copy_state):
            assert opt.param_groups[0]["lr"] == 0.5
            opt.step()
        assert opt.param_groups[0]["lr"] == 0.1 and opt.param_groups[0]["params"][0] is model.weight
        assert (model.weight.detach() == live_weight).all()  # the live parameters untouched
        results.append((copies["weight"].detach().numpy().copy(),
                        copy_state["state"][0]["exp_avg"].numpy().copy(),
                        float(copy_state["state"][0]["step"])))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
    assert results[0][2] == results[1][2] == 2.0


def test_swap_in_checks():
    model = ag.nn.Linear(2, 1)
    opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    with pytest.raises(RuntimeError, match="requires initialized optimizer state"):
        with ag.optim.swap_in_optimizer_params_and_state(opt, {}, opt.state_dict()):
            pass
    model(ag.ones(1, 2)).sum().backward()
    opt.step()
    bad = opt.state_dict()
    bad["param_groups"][0]["extra"] = 1
    with pytest.raises(RuntimeError, match="Keys only in swap-in: \\['extra'\\]"):
        with ag.optim.swap_in_optimizer_params_and_state(opt, dict(model.named_parameters()), bad):
            pass
