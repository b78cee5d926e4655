"""``optim.Adafactor`` and ``optim.Muon``: trajectories against PyTorch's (Muon's
Newton-Schulz in float32: PyTorch's runs in bfloat16, see docs/differences.md) and against
their formulas; their argument checks."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import optim

ag.manual_seed(0)
W0 = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
V0 = np.random.default_rng(1).standard_normal(4).astype(np.float32)
T0 = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)


def _loss(lib, ps):
    return sum(((p * p).sum() * 0.5 + p.sin().sum()) for p in ps)


def _trajectory(lib, cls_name, values, steps=5, **kwargs):
    ps = [lib.tensor(v.copy(), requires_grad=True) for v in values]
    opt = getattr(lib.optim, cls_name)(ps, **kwargs)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(lib, ps).backward()
        opt.step()
        out.append([p.detach().numpy().copy() for p in ps])
    return out, opt


ADAFACTOR = [dict(), dict(lr=0.05, weight_decay=0.1), dict(maximize=True, d=2.0),
             dict(eps=(1e-6, 1e-2), beta2_decay=-0.5)]


@pytest.mark.parametrize("kwargs", ADAFACTOR, ids=[str(k) for k in ADAFACTOR])
def test_adafactor_matches_pytorch(kwargs):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    ours, opt = _trajectory(ag, "Adafactor", [W0, V0, T0], **kwargs)
    theirs, topt = _trajectory(torch, "Adafactor", [W0, V0, T0], **kwargs)
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
    # the factored state: row and column means for matrices, a full variance for vectors
    state = list(opt.state.values())
    assert tuple(state[0]["row_var"].shape) == (5, 1) and tuple(state[0]["col_var"].shape) == (1, 3)
    assert tuple(state[1]["variance"].shape) == (4,)
    assert tuple(state[2]["row_var"].shape) == (2, 3, 1)


def test_adafactor_argument_checks():
    p = [ag.zeros(2, requires_grad=True)]
    for kwargs, match in ((dict(lr=-1), "Learning rate"), (dict(beta2_decay=0.1), "beta2_decay"),
                          (dict(eps=(-1, 1e-3)), "epsilon1"), (dict(eps=(None, -1)), "epsilon2"),
                          (dict(d=0.5), "Clipping threshold"), (dict(weight_decay=-1), "weight_decay")):
        with pytest.raises(ValueError, match=match):
            optim.Adafactor(p, **kwargs)


def _newton_schulz_float32(torch, g, steps=5, eps=1e-7, abc=(3.4445, -4.7750, 2.0315)):
    """PyTorch's iteration, in float32 instead of bfloat16."""
    a, b, c = abc
    x = g.T if g.size(0) > g.size(1) else g
    x = x / x.norm().clamp(min=eps)
    for _ in range(steps):
        gram = x @ x.T
        x = torch.addmm(x, torch.addmm(gram, gram, gram, beta=b, alpha=c), x, beta=a)
    return x.T if g.size(0) > g.size(1) else x


MUON = [dict(), dict(lr=0.02, nesterov=False, weight_decay=0.0),
        dict(adjust_lr_fn="match_rms_adamw", momentum=0.9), dict(ns_steps=3)]


@pytest.mark.parametrize("kwargs", MUON, ids=[str(k) for k in MUON])
def test_muon_matches_pytorchs_formula_in_float32(kwargs, monkeypatch):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    import torch.optim._muon as tm

    ours, _ = _trajectory(ag, "Muon", [W0, W0.T.copy()], **kwargs)
    theirs_bf16, _ = _trajectory(torch, "Muon", [W0, W0.T.copy()], **kwargs)
    monkeypatch.setattr(tm, "_zeropower_via_newtonschulz",
                        lambda g, abc, steps, eps: _newton_schulz_float32(torch, g, steps, eps, abc))
    theirs, _ = _trajectory(torch, "Muon", [W0, W0.T.copy()], **kwargs)
    for a, b, c in zip(ours, theirs, theirs_bf16):
        for x, y, z in zip(a, b, c):
            np.testing.assert_allclose(x, y, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(x, z, rtol=0, atol=3e-2)  # bfloat16's precision


def test_muon_orthogonalizes():
    from arraygrad.optim.muon import zeropower_via_newtonschulz

    g = ag.tensor(W0)
    o = zeropower_via_newtonschulz(g, (3.4445, -4.7750, 2.0315), 5, 1e-7)
    singular = np.linalg.svd(o.numpy(), compute_uv=False)
    assert o.shape == g.shape and np.all((singular > 0.5) & (singular < 1.5))


def test_muon_refuses_what_pytorch_refuses():
    with pytest.raises(ValueError, match="only supports 2D parameters"):
        optim.Muon([ag.zeros(3, requires_grad=True)])
    p = [ag.zeros(2, 2, requires_grad=True)]
    for kwargs, match in ((dict(lr=-1), "Learning rate"), (dict(momentum=-1), "momentum"),
                          (dict(weight_decay=-1), "weight decay"),
                          (dict(adjust_lr_fn="x"), "not supported")):
        with pytest.raises(ValueError, match=match):
            optim.Muon(p, **kwargs)
    from arraygrad.optim.muon import zeropower_via_newtonschulz

    with pytest.raises(ValueError, match="less than 100"):
        zeropower_via_newtonschulz(ag.ones(2, 2), (1, 1, 1), 100, 1e-7)
