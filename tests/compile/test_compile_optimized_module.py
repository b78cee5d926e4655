"""``arraygrad.compile(module)`` returns an ``nn.Module`` (PyTorch's ``OptimizedModule``), and
``Module.compile()`` compiles a module in place: both behave as Modules everywhere a
training script touches a model, with PyTorch's state_dict keys."""

from __future__ import annotations

import copy
import io
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn

from .helpers import host, same


def mlp() -> nn.Module:
    ag.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


X = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)


def test_compiled_module_is_a_module_with_the_original_as_child():
    m = mlp()
    cm = ag.compile(m)
    assert isinstance(cm, nn.Module) and isinstance(cm, ag.compiler.OptimizedModule)
    assert cm._orig_mod is m and dict(cm.named_children()) == {"_orig_mod": m}
    assert [id(p) for p in cm.parameters()] == [id(p) for p in m.parameters()]
    assert len(cm) == 3
    assert repr(cm).startswith("OptimizedModule(\n  (_orig_mod): Sequential(")


def test_state_dict_keys_carry_the_orig_mod_prefix_and_load_back():
    m = mlp()
    cm = ag.compile(m)
    keys = list(cm.state_dict())
    assert keys == ["_orig_mod." + k for k in m.state_dict()]
    other = ag.compile(nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3)))
    result = other.load_state_dict(cm.state_dict())
    assert not result.missing_keys and not result.unexpected_keys
    assert same(host(list(other.parameters())), host(list(m.parameters())))


def test_train_eval_and_attributes_go_to_the_original():
    m = mlp()
    cm = ag.compile(m)
    assert cm.eval() is cm and m.training is False and cm.training is False
    assert all(not c.training for c in m.modules())
    cm.train()
    assert m.training and cm.training
    cm.tag = "x"  # a plain attribute lands on the original
    assert m.tag == "x" and cm.tag == "x"
    del cm.tag
    assert not hasattr(m, "tag")
    with pytest.raises(AttributeError, match="Sequential"):
        cm.no_such_attribute


def test_hooks_on_the_wrapper_run_around_the_compiled_call():
    m = mlp()
    cm = ag.compile(m)
    seen = []
    cm.register_forward_hook(lambda mod, args, out: seen.append(mod))
    x = ag.tensor(X)
    with ag.no_grad():
        for _ in range(3):
            out = cm(x)
            assert same(host(out), host(m(x)))
    assert seen == [cm] * 3
    assert cm.forward.stats["replays"] == 2  # the wrapper's hook runs outside the program


def test_copy_and_pickle_compile_the_copy_afresh():
    m = mlp()
    cm = ag.compile(m, fullgraph=True)
    x = ag.tensor(X)
    with ag.no_grad():
        cm(x)
    dup = copy.deepcopy(cm)
    assert isinstance(dup, ag.compiler.OptimizedModule) and dup._orig_mod is not m
    assert dup.forward is not cm.forward and dup.forward._fullgraph
    assert dup.forward.stats["records"] == 0
    buf = io.BytesIO()
    ag.save(cm, buf)
    buf.seek(0)
    loaded = ag.load(buf, weights_only=False)
    with ag.no_grad():
        assert same(host(loaded(x)), host(m(x)))


def test_global_hook_warns_as_pytorch_does():
    cm = ag.compile(mlp())
    handle = nn.modules.module.register_module_forward_hook(lambda *a: None)
    try:
        with pytest.warns(UserWarning, match="global hooks"):
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=".*graph break.*")
                with ag.no_grad():
                    cm(ag.tensor(X))
    finally:
        handle.remove()


def test_module_compile_in_place_keeps_the_module_and_its_keys():
    m = mlp()
    twin = mlp()
    keys = list(m.state_dict())
    assert m.compile() is None
    assert type(m) is nn.Sequential and list(m.state_dict()) == keys
    x = ag.tensor(X)
    with ag.no_grad():
        for _ in range(4):
            assert same(host(m(x)), host(twin(x)))
    assert m._compiled_call_impl.stats["replays"] == 3
    dup = copy.deepcopy(m)
    assert "_compiled_call_impl" not in dup.__dict__ and dup._compiled_call_impl is None
    assert "forward" not in dup.__dict__  # the copy's forward is its class's, uncompiled
    with ag.no_grad():
        assert same(host(dup(x)), host(twin(x)))


def test_module_compile_runs_the_modules_hooks_around_the_replayed_forward():
    m, twin = mlp(), mlp()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(host(out)))
    m.compile()
    m.compile()  # compiling again compiles the class's forward afresh, not the compiled one
    x = ag.tensor(X)
    with ag.no_grad():
        for _ in range(3):
            assert same(host(m(x)), host(twin(x)))
    assert len(seen) == 3 and all(same(s, host(twin(x))) for s in seen)
    assert m._compiled_call_impl.stats["replays"] == 2
    assert m._compiled_call_impl.__wrapped__.__func__ is nn.Sequential.forward


def test_module_compile_training_step_matches_eager():
    m, twin = mlp(), mlp()
    m.compile()
    opts = [ag.optim.SGD(mod.parameters(), lr=0.1, momentum=0.9) for mod in (m, twin)]
    rng = np.random.default_rng(1)
    for _ in range(6):
        x = ag.tensor(rng.standard_normal((5, 4)).astype(np.float32))
        for mod, opt in zip((m, twin), opts):
            opt.zero_grad()
            mod(x).square().mean().backward()
            opt.step()
    assert same(host(list(m.parameters())), host(list(twin.parameters())))
    assert m._compiled_call_impl.stats["replays"] >= 4  # the training forward replays


def test_state_dict_keys_match_pytorch():
    torch = pytest.importorskip("torch")
    tm = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
    assert list(ag.compile(mlp()).state_dict()) == list(torch.compile(tm).state_dict())


def test_module_compile_with_a_backward_hook_gives_eager_grads_and_hook_calls():
    m, twin = mlp(), mlp()
    calls = {"m": 0, "twin": 0}
    m.register_full_backward_hook(lambda *a: calls.__setitem__("m", calls["m"] + 1))
    twin.register_full_backward_hook(lambda *a: calls.__setitem__("twin", calls["twin"] + 1))
    m.compile()
    rng = np.random.default_rng(2)
    for _ in range(4):
        x = ag.tensor(rng.standard_normal((5, 4)).astype(np.float32), requires_grad=True)
        xt = ag.tensor(host(x), requires_grad=True)
        m(x).square().mean().backward()
        twin(xt).square().mean().backward()
        assert same(host(x.grad), host(xt.grad))
    assert same(host([p.grad for p in m.parameters()]), host([p.grad for p in twin.parameters()]))
    assert calls["m"] == calls["twin"] == 4


def test_module_compile_of_a_disabled_forward_keeps_it():
    class Plain(nn.Module):
        @ag.compiler.disable
        def forward(self, x):
            return x * 2

    p = Plain()
    p.compile()
    assert same(host(p(ag.tensor(X))), X * 2)


def test_a_compiled_bound_forward_is_no_graph_break_for_its_modules_hooks():
    m, twin = mlp(), mlp()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(1))
    forward = ag.compile(m.forward)  # calling forward directly runs no hook, eager or not
    x = ag.tensor(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with ag.no_grad():
            for _ in range(3):
                assert same(host(forward(x)), host(twin(x)))
    assert seen == [] and forward.stats["replays"] == 2
