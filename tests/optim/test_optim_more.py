"""The optimizers added for PyTorch parity (Adadelta, Adamax, NAdam, RAdam, ASGD, Rprop,
SparseAdam): 20-step trajectories against the documented update rules written out here in
NumPy (float64), and against PyTorch's own numbers (same initial parameters, the same
gradient every step) where PyTorch is installed; state layout, validation messages,
state_dict round trips mid-training, the implementation flags, a tensor ``lr``."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import optim

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

P0 = np.array([1.0, -2.0, 0.5, 3.0])
A = np.array([1.0, 0.5, 2.0, 0.1])
B = np.array([0.3, -0.2, 0.0, 1.0])
STEPS = 20


def _grad(p):
    """Gradient of the test objective sum(0.5 * A * p**2 + B * p)."""
    return A * p + B


def _loss(p):
    return (0.5 * ag.tensor(A, dtype=p.dtype) * p * p + ag.tensor(B, dtype=p.dtype) * p).sum()


# -- the documented algorithms (pytorch.org/docs/stable/optim.html), one step each -----------

def ref_adadelta(p, g, st, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=False):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    v = st["v"] = rho * st.get("v", 0.0) + (1 - rho) * g * g
    delta = np.sqrt(st.get("u", 0.0) + eps) / np.sqrt(v + eps) * g
    st["u"] = rho * st.get("u", 0.0) + (1 - rho) * delta * delta
    return p - lr * delta


def ref_adamax(p, g, st, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
               maximize=False):
    b1, b2 = betas
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    u = st["u"] = np.maximum(b2 * st.get("u", 0.0), np.abs(g) + eps)
    return p - lr / (1 - b1 ** t) * m / u


def ref_nadam(p, g, st, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
              momentum_decay=4e-3, decoupled_weight_decay=False, maximize=False):
    b1, b2 = betas
    g = -g if maximize else g
    t = st["t"] = st.get("t", 0) + 1
    if weight_decay:
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    mu = b1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
    mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * momentum_decay))
    prod = st["prod"] = st.get("prod", 1.0) * mu
    m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    v = st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
    v_hat = v / (1 - b2 ** t)
    m_hat = mu_next * m / (1 - prod * mu_next) + (1 - mu) * g / (1 - prod)
    return p - lr * m_hat / (np.sqrt(v_hat) + eps)


def ref_radam(p, g, st, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
              decoupled_weight_decay=False, maximize=False):
    b1, b2 = betas
    g = -g if maximize else g
    t = st["t"] = st.get("t", 0) + 1
    if weight_decay:
        if decoupled_weight_decay:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    m = st["m"] = b1 * st.get("m", 0.0) + (1 - b1) * g
    v = st["v"] = b2 * st.get("v", 0.0) + (1 - b2) * g * g
    m_hat = m / (1 - b1 ** t)
    rho_inf = 2 / (1 - b2) - 1
    rho_t = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    if rho_t > 5:
        l_t = math.sqrt(1 - b2 ** t) / (np.sqrt(v) + eps)
        r_t = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
        return p - lr * m_hat * l_t * r_t
    return p - lr * m_hat


def ref_asgd(p, g, st, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
             maximize=False):
    g = -g if maximize else g
    t = st["t"] = st.get("t", 0) + 1
    eta, mu = st.get("eta", lr), st.get("mu", 1.0)
    if weight_decay:
        g = g + weight_decay * p
    p = p * (1 - lambd * eta) - eta * g
    st["ax"] = p.copy() if mu == 1 else st["ax"] + mu * (p - st["ax"])
    st["eta"] = lr / (1 + lambd * lr * t) ** alpha
    st["mu"] = 1 / max(1, t - t0)
    return p


def ref_rprop(p, g, st, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False):
    g = -g if maximize else g
    prev = st.get("prev", np.zeros_like(p))
    size = st.get("size", np.full_like(p, lr))
    s = np.sign(g * prev)
    size = np.clip(size * np.where(s > 0, etas[1], np.where(s < 0, etas[0], 1.0)), *step_sizes)
    g = np.where(s < 0, 0.0, g)
    st["prev"], st["size"] = g, size
    return p - np.sign(g) * size


def ref_sparse_adam(p, g, st, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
    # the masked Adam PyTorch documents: only the gradient's non-zero entries move
    b1, b2 = betas
    g = -g if maximize else g
    t = st["t"] = st.get("t", 0) + 1
    mask = g != 0
    m = st["m"] = np.where(mask, b1 * st.get("m", 0.0) + (1 - b1) * g, st.get("m", 0.0))
    v = st["v"] = np.where(mask, b2 * st.get("v", 0.0) + (1 - b2) * g * g, st.get("v", 0.0))
    size = lr * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    return np.where(mask, p - size * m / (np.sqrt(v) + eps), p)


CASES = [
    ("adadelta", optim.Adadelta, ref_adadelta, {}),
    ("adadelta_opts", optim.Adadelta, ref_adadelta,
     dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1, maximize=True)),
    ("adamax", optim.Adamax, ref_adamax, dict(lr=0.1)),
    ("adamax_opts", optim.Adamax, ref_adamax,
     dict(lr=0.05, betas=(0.8, 0.95), eps=1e-6, weight_decay=0.1)),
    ("nadam", optim.NAdam, ref_nadam, dict(lr=0.1)),
    ("nadam_l2", optim.NAdam, ref_nadam, dict(lr=0.1, weight_decay=0.1, momentum_decay=0.01)),
    ("nadam_decoupled_maximize", optim.NAdam, ref_nadam,
     dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.2, decoupled_weight_decay=True,
          maximize=True)),
    ("radam", optim.RAdam, ref_radam, dict(lr=0.1)),
    ("radam_l2", optim.RAdam, ref_radam, dict(lr=0.1, weight_decay=0.1, betas=(0.8, 0.9))),
    ("radam_decoupled", optim.RAdam, ref_radam,
     dict(lr=0.1, weight_decay=0.2, decoupled_weight_decay=True, betas=(0.5, 0.7))),
    ("asgd", optim.ASGD, ref_asgd, dict(lr=0.1)),
    ("asgd_averaging", optim.ASGD, ref_asgd,
     dict(lr=0.1, lambd=0.01, alpha=0.5, t0=5, weight_decay=0.1, maximize=False)),
    ("rprop", optim.Rprop, ref_rprop, dict(lr=0.1)),
    ("rprop_opts", optim.Rprop, ref_rprop,
     dict(lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.2), maximize=True)),
    ("sparse_adam", optim.SparseAdam, ref_sparse_adam, dict(lr=0.1)),
    ("sparse_adam_opts", optim.SparseAdam, ref_sparse_adam,
     dict(lr=0.05, betas=(0.8, 0.9), eps=1e-6)),
]
IDS = [c[0] for c in CASES]


def _run(cls, kwargs, steps=STEPS, dtype=None):
    p = ag.tensor(P0, dtype=dtype or ag.float32, requires_grad=True)
    opt = cls([p], **kwargs)
    traj = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(p).backward()
        opt.step()
        traj.append(p.detach().numpy().copy())
    return np.array(traj), opt, p


@pytest.mark.parametrize("name,cls,ref,kwargs", CASES, ids=IDS)
def test_twenty_step_trajectory_matches_documented_rule(name, cls, ref, kwargs):
    traj, _, _ = _run(cls, kwargs)
    p, st, expected = P0.copy(), {}, []
    for _ in range(STEPS):
        p = ref(p, _grad(p), st, **kwargs)
        expected.append(p)
    np.testing.assert_allclose(traj, np.array(expected), rtol=2e-5, atol=2e-6)


def _grad_sequence(seed=0, zeros=False):
    rng = np.random.default_rng(seed)
    grads = rng.standard_normal((STEPS, 2, 3))
    if zeros:  # entries a sparse gradient would not hold
        grads[rng.random((STEPS, 2, 3)) < 0.4] = 0.0
    return grads


@needs_torch
@pytest.mark.parametrize("name,cls,ref,kwargs", CASES, ids=IDS)
def test_matches_torch_given_the_same_gradients(name, cls, ref, kwargs):
    """float64 parameters, one fixed gradient per step: PyTorch's numbers, to rounding."""
    sparse = cls is optim.SparseAdam
    grads = _grad_sequence(zeros=sparse)
    w0 = np.random.default_rng(1).standard_normal((2, 3))
    p = ag.tensor(w0, dtype=ag.float64, requires_grad=True)
    tp = torch.tensor(w0, dtype=torch.float64, requires_grad=True)
    opt = cls([p], **kwargs)
    topt = getattr(torch.optim, cls.__name__)([tp], **kwargs)
    for g in grads:
        p.grad = ag.tensor(g, dtype=ag.float64)
        tg = torch.tensor(g, dtype=torch.float64)
        tp.grad = tg.to_sparse() if sparse else tg
        opt.step()
        topt.step()
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-9,
                                   atol=1e-12)
    # the same state entries, with the same values and kinds (step as a 0-d float32 tensor)
    ours, theirs = opt.state_dict(), topt.state_dict()
    assert sorted(ours["param_groups"][0]) == sorted(theirs["param_groups"][0])
    assert {k: v for k, v in ours["param_groups"][0].items()} == {
        k: v for k, v in theirs["param_groups"][0].items()}
    assert list(ours["state"][0]) == list(theirs["state"][0])
    for key, value in theirs["state"][0].items():
        mine = ours["state"][0][key]
        if isinstance(value, torch.Tensor):
            assert str(mine.dtype).split(".")[-1] == str(value.dtype).split(".")[-1], key
            np.testing.assert_allclose(mine.numpy(), value.numpy(), rtol=1e-6, atol=1e-12)
        else:
            assert type(mine) is type(value) and mine == value


def test_sparse_adam_leaves_entries_without_gradient_untouched():
    p = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    opt = optim.SparseAdam([p], lr=0.1)
    for _ in range(3):
        p.grad = ag.tensor([0.5, 0.0, -1.0])
        opt.step()
    assert p[1].item() == 2.0
    assert opt.state[p]["exp_avg"][1].item() == 0.0 and opt.state[p]["step"] == 3
    assert p[0].item() < 1.0 and p[2].item() > 3.0


@pytest.mark.parametrize("name,cls,ref,kwargs", CASES, ids=IDS)
def test_state_dict_round_trip_mid_training_continues_identically(name, cls, ref, kwargs):
    full, _, _ = _run(cls, kwargs, steps=STEPS)
    _, opt, p = _run(cls, kwargs, steps=STEPS // 2)
    saved = opt.state_dict()
    assert saved["param_groups"][0]["params"] == [0] and set(saved["state"]) == {0}
    q = ag.tensor(p.detach().numpy(), requires_grad=True)
    other = cls([q], lr=0.123)
    other.load_state_dict(saved)
    assert other.param_groups[0]["lr"] == kwargs.get("lr", opt.defaults["lr"])
    for _ in range(STEPS - STEPS // 2):
        other.zero_grad()
        _loss(q).backward()
        other.step()
    np.testing.assert_allclose(q.detach().numpy(), full[-1], rtol=1e-6, atol=1e-7)


ALL = [optim.SGD, optim.Adam, optim.AdamW, optim.RMSprop, optim.Adagrad, optim.Adadelta,
       optim.Adamax, optim.NAdam, optim.RAdam, optim.ASGD, optim.Rprop]


@needs_torch
@pytest.mark.parametrize("cls", ALL + [optim.SparseAdam, optim.LBFGS],
                         ids=lambda c: c.__name__)
def test_signature_and_defaults_match_torch(cls):
    import inspect
    ours = inspect.signature(cls.__init__).parameters
    theirs = inspect.signature(getattr(torch.optim, cls.__name__).__init__).parameters
    assert [(n, p.kind, p.default) for n, p in ours.items()] == [
        (n, p.kind, p.default) for n, p in theirs.items()]


BAD = [
    (optim.Adadelta, dict(lr=-1.0)), (optim.Adadelta, dict(rho=1.5)),
    (optim.Adadelta, dict(eps=-1.0)), (optim.Adadelta, dict(weight_decay=-1.0)),
    (optim.Adamax, dict(lr=-0.5)), (optim.Adamax, dict(betas=(1.0, 0.9))),
    (optim.Adamax, dict(betas=(0.9, -0.1))), (optim.Adamax, dict(eps=-1.0)),
    (optim.NAdam, dict(momentum_decay=-1.0)), (optim.NAdam, dict(weight_decay=-1.0)),
    (optim.RAdam, dict(betas=(0.9, 1.0))), (optim.RAdam, dict(eps=-1e-3)),
    (optim.ASGD, dict(lr=-1.0)), (optim.ASGD, dict(weight_decay=-0.1)),
    (optim.Rprop, dict(etas=(1.5, 1.2))), (optim.Rprop, dict(etas=(0.5, 0.9))),
    (optim.SparseAdam, dict(lr=0.0)), (optim.SparseAdam, dict(eps=0.0)),
    (optim.SparseAdam, dict(betas=(0.9, 1.0))), (optim.LBFGS, dict(lr=-1.0)),
    (optim.SGD, dict(lr=0.1, fused=True, differentiable=True)),
    (optim.Adam, dict(fused=True, foreach=True)),
    (optim.AdamW, dict(fused=True, differentiable=True)),
    (optim.Adagrad, dict(fused=True, foreach=True)),
]


@pytest.mark.parametrize("cls,kwargs", BAD, ids=[f"{c.__name__}-{sorted(k)}" for c, k in BAD])
def test_bad_hyper_parameters_raise_pytorchs_error(cls, kwargs):
    p = ag.tensor([1.0], requires_grad=True)
    with pytest.raises((ValueError, RuntimeError)) as ours:
        cls([p], **kwargs)
    if torch is not None:
        with pytest.raises((ValueError, RuntimeError)) as theirs:
            getattr(torch.optim, cls.__name__)([torch.tensor([1.0], requires_grad=True)],
                                               **kwargs)
        assert ours.type is theirs.type and str(ours.value) == str(theirs.value)
    else:
        assert "Invalid" in str(ours.value) or "fused" in str(ours.value)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_implementation_flags_are_accepted_and_change_nothing(cls):
    import inspect
    names = inspect.signature(cls.__init__).parameters
    flags = {k: True for k in ("foreach", "capturable") if k in names}
    kwargs = {"lr": 0.1}
    plain, _, _ = _run(cls, kwargs, steps=5)
    flagged, opt, _ = _run(cls, dict(kwargs, **flags), steps=5)
    np.testing.assert_array_equal(plain, flagged)
    assert all(opt.param_groups[0][k] is True for k in flags)
    if "fused" in names:
        fused, _, _ = _run(cls, dict(kwargs, fused=True), steps=5)
        np.testing.assert_array_equal(plain, fused)


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_tensor_lr(cls):
    plain, _, _ = _run(cls, {"lr": 0.1}, steps=5)
    with_tensor, _, _ = _run(cls, {"lr": ag.tensor(0.1)}, steps=5)
    np.testing.assert_allclose(plain, with_tensor, rtol=1e-6)
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        cls([ag.tensor([1.0], requires_grad=True)], lr=ag.tensor([0.1, 0.2]))


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_differentiable_records_the_update(cls):
    """differentiable=True: the step is part of the graph, so d(new p)/d(grad) exists and
    equals a finite difference of the update."""
    w = ag.tensor([0.7, -1.3], dtype=ag.float64, requires_grad=True)

    def updated(g_value):
        p = w.clone()  # a non-leaf: only a differentiable optimizer accepts it
        g = ag.tensor(g_value, dtype=ag.float64, requires_grad=True)
        p.grad = g
        cls([p], lr=0.1, differentiable=True).step()
        return p, g

    g0 = np.array([0.4, -0.9])
    p, g = updated(g0)
    assert p.grad_fn is not None
    p.sum().backward()
    h = 1e-6
    for i in range(2):
        bump = np.eye(2)[i] * h
        fd = (updated(g0 + bump)[0].detach().numpy().sum()
              - updated(g0 - bump)[0].detach().numpy().sum()) / (2 * h)
        assert g.grad[i].item() == pytest.approx(fd, rel=1e-5, abs=1e-7)
    with pytest.raises(ValueError, match="non-leaf"):
        cls([w.clone()], lr=0.1)


def test_params_without_grad_are_skipped_and_groups_use_their_options():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([3.0], requires_grad=True)
    c = ag.tensor([4.0], requires_grad=True)
    opt = optim.NAdam([{"params": [a, c]}, {"params": [b], "lr": 0.5, "betas": (0.5, 0.6)}],
                      lr=0.1)
    assert opt.param_groups[1]["momentum_decay"] == 4e-3
    assert opt.param_groups[1]["betas"] == (0.5, 0.6) and opt.param_groups[0]["lr"] == 0.1
    ((a * a).sum() + b.sum()).backward()
    opt.step()
    assert c.item() == 4.0 and c not in opt.state
    st = {}
    expected = ref_nadam(np.array([3.0]), np.array([1.0]), st, lr=0.5, betas=(0.5, 0.6))
    assert b.item() == pytest.approx(expected[0], rel=1e-6)


EXISTING = [
    (optim.SGD, dict(lr=0.1)),
    (optim.SGD, dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    (optim.SGD, dict(lr=0.05, momentum=0.8, nesterov=True, maximize=True, weight_decay=0.1)),
    (optim.Adam, dict(lr=0.1)),
    (optim.Adam, dict(lr=0.1, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True, eps=1e-6)),
    (optim.Adam, dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
    (optim.AdamW, dict(lr=0.1, amsgrad=True)),
    (optim.AdamW, dict(lr=0.1, weight_decay=0.5, maximize=True)),
    (optim.RMSprop, dict(lr=0.01)),
    (optim.RMSprop, dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    (optim.RMSprop, dict(lr=0.01, momentum=0.3, maximize=True)),
    (optim.Adagrad, dict(lr=0.1)),
    (optim.Adagrad, dict(lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.5,
                         maximize=True, eps=1e-6)),
]


@needs_torch
@pytest.mark.parametrize("cls,kwargs", EXISTING,
                         ids=[f"{c.__name__}-{i}" for i, (c, _) in enumerate(EXISTING)])
def test_existing_optimizers_match_torch_for_twenty_steps(cls, kwargs):
    grads = _grad_sequence(seed=5)
    w0 = np.random.default_rng(6).standard_normal((2, 3))
    p = ag.tensor(w0, dtype=ag.float64, requires_grad=True)
    tp = torch.tensor(w0, dtype=torch.float64, requires_grad=True)
    opt, topt = cls([p], **kwargs), getattr(torch.optim, cls.__name__)([tp], **kwargs)
    for g in grads:
        p.grad = ag.tensor(g, dtype=ag.float64)
        tp.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        topt.step()
        np.testing.assert_allclose(p.detach().numpy(), tp.detach().numpy(), rtol=1e-9,
                                   atol=1e-12)
    assert opt.state_dict()["param_groups"] == topt.state_dict()["param_groups"]
    ours, theirs = opt.state_dict()["state"], topt.state_dict()["state"]
    assert list(ours.get(0, {})) == list(theirs.get(0, {}))
