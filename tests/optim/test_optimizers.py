"""Optimizers: 5-step trajectories against PyTorch's documented algorithms written out by hand
(NumPy float64, float32 tolerance), parameter groups, errors, state_dict round trips."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import optim

P0 = np.array([1.0, -2.0, 0.5, 3.0])
A = np.array([1.0, 0.5, 2.0, 0.1])
B = np.array([0.3, -0.2, 0.0, 1.0])


def _grad(p):
    """Gradient of the test objective sum(0.5 * A * p**2 + B * p)."""
    return A * p + B


def _loss(p):
    return (0.5 * ag.tensor(A, dtype=ag.float32) * p * p + ag.tensor(B, dtype=ag.float32) * p).sum()


# -- the documented algorithms (pytorch.org/docs/stable/optim.html), one step each --------

def ref_sgd(p, g, st, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, maximize=False):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    if momentum:
        b = g.copy() if "b" not in st else momentum * st["b"] + (1 - dampening) * g
        st["b"] = b
        g = g + momentum * b if nesterov else b
    return p - lr * g


def ref_adam(p, g, st, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False,
             maximize=False, decoupled=False):
    b1, b2 = betas
    g = -g if maximize else g
    if weight_decay:
        if decoupled:
            p = p * (1 - lr * weight_decay)
        else:
            g = g + weight_decay * p
    t = st["t"] = st.get("t", 0) + 1
    m = st["m"] = b1 * st.get("m", 0) + (1 - b1) * g
    v = st["v"] = b2 * st.get("v", 0) + (1 - b2) * g * g
    m_hat = m / (1 - b1 ** t)
    if amsgrad:
        vmax = st["vmax"] = np.maximum(st.get("vmax", 0), v)
        v_hat = vmax / (1 - b2 ** t)
    else:
        v_hat = v / (1 - b2 ** t)
    return p - lr * m_hat / (np.sqrt(v_hat) + eps)


def ref_rmsprop(p, g, st, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                centered=False, maximize=False):
    g = -g if maximize else g
    if weight_decay:
        g = g + weight_decay * p
    v = st["v"] = alpha * st.get("v", 0) + (1 - alpha) * g * g
    vt = v
    if centered:
        ga = st["ga"] = alpha * st.get("ga", 0) + (1 - alpha) * g
        vt = v - ga * ga
    if momentum > 0:
        b = st["b"] = momentum * st.get("b", 0) + g / (np.sqrt(vt) + eps)
        return p - lr * b
    return p - lr * g / (np.sqrt(vt) + eps)


def ref_adagrad(p, g, st, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                eps=1e-10, maximize=False):
    g = -g if maximize else g
    t = st["t"] = st.get("t", 0) + 1
    if weight_decay:
        g = g + weight_decay * p
    clr = lr / (1 + (t - 1) * lr_decay)
    s = st["s"] = st.get("s", initial_accumulator_value) + g * g
    return p - clr * g / (np.sqrt(s) + eps)


def ref_adamw(p, g, st, weight_decay=1e-2, **kw):
    return ref_adam(p, g, st, weight_decay=weight_decay, decoupled=True, **kw)


CASES = [
    ("sgd", optim.SGD, ref_sgd, dict(lr=0.1)),
    ("sgd_momentum_dampening_wd", optim.SGD, ref_sgd,
     dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("sgd_nesterov_maximize", optim.SGD, ref_sgd, dict(lr=0.05, momentum=0.8, nesterov=True,
                                                       maximize=True)),
    ("adam", optim.Adam, ref_adam, dict(lr=0.1)),
    ("adam_amsgrad_wd", optim.Adam, ref_adam, dict(lr=0.1, betas=(0.8, 0.9), weight_decay=0.1,
                                                   amsgrad=True, eps=1e-6)),
    ("adam_maximize", optim.Adam, ref_adam, dict(lr=0.01, maximize=True)),
    ("adamw", optim.AdamW, ref_adamw, dict(lr=0.1)),
    ("adamw_amsgrad", optim.AdamW, ref_adamw, dict(lr=0.1, weight_decay=0.5, amsgrad=True)),
    ("rmsprop", optim.RMSprop, ref_rmsprop, dict(lr=0.01)),
    ("rmsprop_centered_momentum_wd", optim.RMSprop, ref_rmsprop,
     dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    ("adagrad", optim.Adagrad, ref_adagrad, dict(lr=0.1)),
    ("adagrad_decay_wd_init", optim.Adagrad, ref_adagrad,
     dict(lr=0.1, lr_decay=0.1, weight_decay=0.1, initial_accumulator_value=0.5, maximize=True)),
]


def _run(cls, kwargs, steps=5):
    p = ag.tensor(P0, dtype=ag.float32, requires_grad=True)
    opt = cls([p], **kwargs)
    traj = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(p).backward()
        opt.step()
        traj.append(p.detach().numpy().copy())
    return np.array(traj), opt, p


@pytest.mark.parametrize("name,cls,ref,kwargs", CASES, ids=[c[0] for c in CASES])
def test_five_step_trajectory_matches_documented_formula(name, cls, ref, kwargs):
    traj, _, _ = _run(cls, kwargs)
    p, st, expected = P0.copy(), {}, []
    for _ in range(5):
        p = ref(p, _grad(p), st, **kwargs)
        expected.append(p)
    np.testing.assert_allclose(traj, np.array(expected), rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name,cls,ref,kwargs", CASES[::3], ids=[c[0] for c in CASES[::3]])
def test_trajectory_matches_torch(name, cls, ref, kwargs):
    torch = pytest.importorskip("torch")
    traj, _, _ = _run(cls, kwargs)
    p = torch.tensor(P0, dtype=torch.float32, requires_grad=True)
    opt = getattr(torch.optim, cls.__name__)([p], **kwargs)
    a, b = torch.tensor(A, dtype=torch.float32), torch.tensor(B, dtype=torch.float32)
    expected = []
    for _ in range(5):
        opt.zero_grad()
        (0.5 * a * p * p + b * p).sum().backward()
        opt.step()
        expected.append(p.detach().numpy().copy())
    np.testing.assert_allclose(traj, np.array(expected), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name,cls,ref,kwargs", CASES, ids=[c[0] for c in CASES])
def test_state_dict_round_trip_continues_identically(name, cls, ref, kwargs):
    full, _, _ = _run(cls, kwargs, steps=5)
    _, opt, p = _run(cls, kwargs, steps=2)
    saved = opt.state_dict()
    assert set(saved) == {"state", "param_groups"} and saved["param_groups"][0]["params"] == [0]
    q = ag.tensor(p.detach().numpy(), requires_grad=True)
    # a fresh optimizer with other hyper-parameters: loading must restore them
    other = cls([q], lr=123.0)
    other.load_state_dict(saved)
    assert other.param_groups[0]["lr"] == kwargs["lr"]
    for _ in range(3):
        other.zero_grad()
        _loss(q).backward()
        other.step()
    np.testing.assert_allclose(q.detach().numpy(), full[-1], rtol=1e-6, atol=1e-7)
    # loading copies: the original optimizer's state is not touched by the new one's steps
    for key, value in opt.state_dict()["state"].get(0, {}).items():
        assert value is not other.state[q][key]


def test_param_groups_use_their_own_hyper_parameters():
    a = ag.tensor([1.0], requires_grad=True)
    b = ag.tensor([1.0], requires_grad=True)
    opt = optim.SGD([{"params": [a]}, {"params": b, "lr": 0.5}], lr=0.1, momentum=0.0)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    assert opt.param_groups[1]["momentum"] == 0.0
    (a + b).sum().backward()
    opt.step()
    assert a.item() == pytest.approx(0.9) and b.item() == pytest.approx(0.5)
    c = ag.tensor([2.0], requires_grad=True)
    opt.add_param_group({"params": [c], "lr": 0.25})
    sd = opt.state_dict()
    assert [g["params"] for g in sd["param_groups"]] == [[0], [1], [2]]


def test_constructor_errors():
    x = ag.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([x * 2], lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.Adam(x)
    with pytest.raises(TypeError, match="ordered collections"):
        optim.SGD([{"params": {x}}], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        optim.SGD([{"params": [x]}, {"params": [x]}], lr=0.1)
    with pytest.warns(UserWarning, match="duplicate parameters"):
        optim.SGD([x, x], lr=0.1)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        optim.Adam([x], lr=-1)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1"):
        optim.Adam([x], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="Nesterov momentum requires"):
        optim.SGD([x], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        optim.SGD([x], lr=0.1).load_state_dict({"state": {}, "param_groups": []})


def test_zero_grad_modes_and_skipping_params_without_grad():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = ag.tensor([3.0], requires_grad=True)
    opt = optim.Adam([x, y], lr=0.1)
    (x * x).sum().backward()
    opt.step()
    assert y.item() == 3.0 and y not in opt.state  # no grad: untouched, no state
    opt.zero_grad(set_to_none=False)
    assert x.grad is not None and x.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert x.grad is None


def test_step_closure_and_no_graph_recorded():
    x = ag.tensor([1.0], requires_grad=True)
    opt = optim.SGD([x], lr=0.1, momentum=0.9)

    def closure():
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 1.0
    assert x.is_leaf and x.grad_fn is None
    assert not opt.state[x]["momentum_buffer"].requires_grad
