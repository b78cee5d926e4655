"""What the optimizers' array fast paths are compared on (``test_adam_fast_path``,
``test_sgd_fast_path``): a few steps of a small model, and its parameters, state and version
counters compared bit for bit."""

from __future__ import annotations

import arraygrad as ag


def train(opt_cls, dtype, steps=4, **kw):
    """``(parameters, state copies, parameter versions, state versions)`` after ``steps``
    steps of ``opt_cls(**kw)`` on ``(sin(W) @ b)^2``, seeded."""
    ag.manual_seed(0)
    ps = [ag.nn.Parameter(ag.randn(4, 3, dtype=dtype)), ag.nn.Parameter(ag.randn(3, dtype=dtype))]
    opt = opt_cls(ps, **kw)
    for _ in range(steps):
        opt.zero_grad()
        (ps[0].sin() @ ps[1]).pow(2).sum().backward()
        opt.step()
    state = [{k: v.detach().clone() for k, v in opt.state[p].items()} for p in ps]
    return ps, state, [p._version for p in ps], [[v._version for v in opt.state[p].values()]
                                                 for p in ps]


def assert_same(a, b):
    """Two ``train`` results equal bit for bit: values, dtypes, state keys and versions."""
    pa, sa, va, sva = a
    pb, sb, vb, svb = b
    for x, y in zip(pa, pb):
        assert x.dtype == y.dtype and x.detach().tolist() == y.detach().tolist()
    for x, y in zip(sa, sb):
        assert x.keys() == y.keys()
        for k in x:
            assert x[k].tolist() == y[k].tolist(), k
    assert va == vb and sva == svb


def beside_pytorch(torch, cls, tcls, kw, steps=5):
    """``(p, tp, opt, topt)``: one (2, 2) parameter trained ``steps`` steps on
    ``sum(exp(p) * p)`` by arraygrad's ``cls(**kw)`` and PyTorch's ``tcls(**kw)``; asserts the
    values agree within float32 rounding and the version counters are equal."""
    import pytest

    p = ag.nn.Parameter(ag.tensor([[0.5, -1.0], [2.0, 0.25]]))
    tp = torch.nn.Parameter(torch.tensor([[0.5, -1.0], [2.0, 0.25]]))
    opt, topt = cls([p], **kw), tcls([tp], **kw)
    for _ in range(steps):
        opt.zero_grad(), topt.zero_grad()
        (p.exp() * p).sum().backward()
        (tp.exp() * tp).sum().backward()
        opt.step(), topt.step()
    assert p.detach().flatten().tolist() == pytest.approx(tp.detach().flatten().tolist(),
                                                          rel=1e-6, abs=1e-7)
    assert p._version == tp._version
    return p, tp, opt, topt
