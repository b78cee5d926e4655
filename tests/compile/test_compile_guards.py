"""Guards: a changed shape, dtype, requires_grad, grad mode or module mode records again and
gives eager's results; the cache is bounded; ``ARRAYGRAD_LOGS=recompiles`` says why."""

from __future__ import annotations

import logging
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.compiler import compiled as compiled_mod

from .helpers import host, same


def _f(model):
    def f(x):
        out = model(x)
        return (out * out).sum(), out
    return f


def _calls(args_list, training=None):
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 2))
    f = _f(model)
    cf = ag.compile(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for i, (make, grad_mode, train) in enumerate(args_list):
            model.train(train)
            with ag.set_grad_enabled(grad_mode):
                ag.manual_seed(i)
                want = host(f(make()))
                ag.manual_seed(i)
                got = host(cf(make()))
            assert same(want, got), i
    return cf


def _x(shape=(2, 3), dtype=ag.float32, rg=False):
    data = np.arange(np.prod(shape), dtype=np.float64).reshape(shape) / 7
    return lambda: ag.tensor(data, dtype=dtype, requires_grad=rg)


@pytest.mark.parametrize("change", [
    ("shape", _x((2, 3)), _x((5, 3))),
    ("dtype", _x(dtype=ag.float32), _x(dtype=ag.float64)),
])
def test_changed_input_records_again(change):
    _, first, second = change
    grad_mode = False
    if change[0] == "dtype":
        # a float64 input through float32 layers is eager's error too: compare raising
        cf = _calls([(first, False, False)] * 2)
        with pytest.raises(RuntimeError):
            cf(second())
        return
    plan = [(first, grad_mode, False)] * 3 + [(second, grad_mode, False)] * 3 + [(first, grad_mode, False)]
    cf = _calls(plan)
    assert cf.stats == {"records": 2, "replays": 5, "eager": 0}


def test_requires_grad_records_again():
    ag.manual_seed(0)
    lin = nn.Linear(3, 2)

    def f(x):
        lin.zero_grad()
        loss = (lin(x) ** 2).sum()
        loss.backward()
        return loss, x.grad if x.requires_grad else None, lin.weight.grad

    cf = ag.compile(f)
    for rg in (False, False, True, True, True, False):
        want = host(f(_x(rg=rg)()))
        got = host(cf(_x(rg=rg)()))
        assert same(want, got), rg
    assert cf.stats == {"records": 2, "replays": 4, "eager": 0}


def test_dtype_guard_records_again():
    f = ag.compile(lambda x: (x * 3 + 1).tanh())
    for dtype in (ag.float32, ag.float64, ag.float32, ag.float64):
        x = ag.tensor([0.5, 0.25], dtype=dtype)
        got = f(x)
        assert got.dtype is dtype and same(host(got), host((x * 3 + 1).tanh()))
    assert f.stats == {"records": 2, "replays": 2, "eager": 0}


def test_grad_mode_records_again():
    cf = _calls([(_x(), False, False)] * 3 + [(_x(), True, False)] * 2 + [(_x(), False, False)])
    # the grad-enabled calls are a training forward: recorded once, then replayed too
    assert cf.stats == {"records": 2, "replays": 4, "eager": 0}


def test_module_training_records_again():
    plan = [(_x(), False, True)] * 3 + [(_x(), False, False)] * 3 + [(_x(), False, True)] * 2
    cf = _calls(plan)
    assert cf.stats == {"records": 2, "replays": 6, "eager": 0}


def test_python_scalar_argument_is_guarded():
    f = ag.compile(lambda x, k: x * k)
    x = ag.tensor([1.0, 2.0])
    for k in (2.0, 2.0, 3.0, 3.0, 2.0):
        assert same(host(f(x, k)), host(x * k))
    assert f.stats == {"records": 2, "replays": 3, "eager": 0}


def test_replaced_parameter_records_again():
    lin = nn.Linear(2, 2)
    f = ag.compile(lambda x: lin(x))
    x = ag.ones(1, 2)
    with ag.no_grad():
        f(x), f(x)
        lin.weight = nn.Parameter(ag.zeros(2, 2))
        assert same(host(f(x)), host(lin(x)))
    assert f.stats["records"] == 2


def test_cache_is_bounded_then_eager_with_a_warning(monkeypatch):
    monkeypatch.setattr(compiled_mod, "cache_size_limit", 3)
    f = ag.compile(lambda x: x + 1)
    for n in range(1, 4):
        f(ag.ones(n))
    with pytest.warns(UserWarning, match="cache_size_limit"):
        out = f(ag.ones(4))
    assert same(host(out), host(ag.ones(4) + 1))
    for n in range(5, 9):  # eager from now on: no more recordings, no more warnings
        assert same(host(f(ag.ones(n))), host(ag.ones(n) + 1))
    assert f.stats["records"] == 3


def test_recompiles_log_says_why(monkeypatch, caplog):
    monkeypatch.setenv("ARRAYGRAD_LOGS", "recompiles")
    f = ag.compile(lambda x: x * 2)
    with caplog.at_level(logging.DEBUG, logger="arraygrad.compile"):
        f(ag.ones(2))
        f(ag.ones(3))
    text = caplog.text
    assert "Recompiling" in text and "(2,)" in text and "(3,)" in text


def test_no_log_without_the_setting(monkeypatch, caplog):
    monkeypatch.delenv("ARRAYGRAD_LOGS", raising=False)
    f = ag.compile(lambda x: x * 2)
    with caplog.at_level(logging.DEBUG, logger="arraygrad.compile"):
        f(ag.ones(2))
        f(ag.ones(3))
    assert "Recompiling" not in caplog.text


def test_added_param_group_records_again():
    a, b = nn.Linear(2, 2), nn.Linear(2, 2)
    opt = ag.optim.SGD(a.parameters(), lr=0.1)

    def step(x):
        opt.zero_grad()
        (a(x).sum() + b(x).sum()).backward()
        opt.step()

    cf = ag.compile(step)
    x = ag.ones(1, 2)
    for _ in range(3):
        cf(x)
    opt.add_param_group({"params": list(b.parameters())})
    before = [host(p) for p in b.parameters()]
    cf(x)
    assert not all(same(p, host(q)) for p, q in zip(before, b.parameters()))  # b is trained now


def test_recompiles_log_names_a_failed_value_guard(monkeypatch, caplog):
    monkeypatch.setenv("ARRAYGRAD_LOGS", "recompiles")
    lin = nn.Linear(3, 3)
    # (whether every target is ignored is read into Python: a value guard; other labels with
    # the same answers replay)
    f = ag.compile(lambda x, t: nn.functional.cross_entropy(lin(x), t, ignore_index=1))
    x = ag.ones(4, 3)
    with caplog.at_level(logging.DEBUG, logger="arraygrad.compile"), ag.no_grad():
        f(x, ag.tensor(np.array([0, 1, 2, 0])))
        f(x, ag.tensor(np.array([1, 1, 1, 1])))
    assert "value guard" in caplog.text
    assert f.stats["records"] == 2
