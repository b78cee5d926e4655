"""Plugin ops' ``Tensor`` methods: bound on the class once when the ops load, unbound when the
plugin set changes, loaded by the first unknown attribute; a miss is a plain AttributeError."""

from __future__ import annotations

import warnings

import pytest

import arraygrad as ag
from arraygrad import tensor_methods
from arraygrad.nn import Parameter
from arraygrad.plugins import PluginLoadWarning, hookimpl, register_plugin
from arraygrad.plugins import registry
from arraygrad.tensor import Tensor


def _twice(input):
    """Twice the input."""
    return input * 2


def _thrice(input):
    """Three times the input."""
    return input * 3


class _Ops:
    """An op plugin registering ``ops``: (name, fn, method, override) tuples."""

    def __init__(self, *ops):
        self.ops = ops

    @hookimpl
    def arraygrad_register_ops(self, registry):
        for name, fn, method, override in self.ops:
            registry.op(name, fn, method=method, override=override)


@pytest.fixture
def plugins(fresh_plugins):
    """Fresh plugin state (the dummy distribution's broken plugins stay quiet here)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=PluginLoadWarning, message=".*dummy_broken")
        yield fresh_plugins


def test_a_plugin_method_is_bound_on_the_class_when_the_ops_load(plugins):
    register_plugin(_Ops(("demo_twice", _twice, "demo_twice", False)), name="demo")
    assert "demo_twice" not in Tensor.__dict__
    assert "__getattr__" in Tensor.__dict__  # until then, a miss loads the ops
    t = ag.tensor([1.0, 2.0])
    assert t.demo_twice().tolist() == [2.0, 4.0]  # first access loads them
    assert Tensor.__dict__["demo_twice"] is _twice
    assert "__getattr__" not in Tensor.__dict__


def test_once_loaded_no_lookup_runs_on_attribute_access(plugins, monkeypatch):
    register_plugin(_Ops(("demo_twice", _twice, "demo_twice", False)), name="demo")
    registry.load_ops()

    def must_not_run(*args, **kwargs):
        raise AssertionError("the op registry was consulted on attribute access")

    monkeypatch.setattr(registry, "load_ops", must_not_run)
    monkeypatch.setattr(registry, "ops", must_not_run)
    monkeypatch.setattr(registry, "get_op", must_not_run)
    t = ag.tensor([1.0])
    assert t.demo_twice().tolist() == [2.0]
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'not_a_method'"):
        t.not_a_method


@pytest.mark.parametrize("loaded", [False, True])
def test_an_unknown_attribute_is_an_attribute_error_naming_it(plugins, loaded):
    if loaded:
        registry.load_ops()
    t = ag.tensor([1.0])
    with pytest.raises(AttributeError, match="'Tensor' object has no attribute 'not_a_method'"):
        t.not_a_method
    assert not hasattr(t, "_private_thing")
    p = Parameter(ag.ones(1))
    with pytest.raises(AttributeError, match="'Parameter' object has no attribute 'nope'"):
        p.nope


def test_methods_are_unbound_and_rebound_when_the_plugin_set_changes(plugins):
    register_plugin(_Ops(("demo_twice", _twice, "demo_twice", False)), name="demo")
    t = ag.tensor([1.0])
    assert t.demo_twice().tolist() == [2.0]
    register_plugin(_Ops(("demo_thrice", _thrice, "demo_thrice", False)), name="demo3")
    assert "demo_twice" not in Tensor.__dict__  # unbound: the set changed
    assert t.demo_thrice().tolist() == [3.0]  # reloaded on first need, both bound again
    assert t.demo_twice().tolist() == [2.0]
    plugins._reset_for_tests()  # hand-registered plugins are forgotten
    assert "demo_twice" not in Tensor.__dict__ and "demo_thrice" not in Tensor.__dict__
    with pytest.raises(AttributeError, match="'demo_twice'"):
        t.demo_twice


def test_a_method_taken_from_tensor_needs_override_and_is_put_back(plugins):
    original = Tensor.__dict__["exp"]
    assert original is tensor_methods.METHODS["exp"]
    register_plugin(_Ops(("my_exp", _twice, "exp", False)), name="no_override")
    with pytest.warns(PluginLoadWarning, match="no_override.*Tensor.exp already exists"):
        registry.load_ops()
    assert Tensor.__dict__["exp"] is original and registry.get_op("my_exp") is None
    plugins._reset_for_tests()
    register_plugin(_Ops(("my_exp", _twice, "exp", True)), name="with_override")
    # ``t.exp`` exists, so it does not load the ops: the override starts when they load
    assert ag.tensor([1.0]).exp().tolist() == pytest.approx([2.718281828])
    registry.load_ops()
    assert ag.tensor([1.0]).exp().tolist() == [2.0]
    plugins._reset_for_tests()
    assert Tensor.__dict__["exp"] is original
    assert ag.tensor([0.0]).exp().tolist() == [1.0]


def test_two_ops_cannot_share_a_method_without_override(plugins):
    register_plugin(_Ops(("demo_a", _twice, "demo_m", False),
                         ("demo_b", _thrice, "demo_m", False)), name="demo")
    with pytest.warns(PluginLoadWarning, match="Tensor.demo_m is already the method of op 'demo_a"):
        registry.load_ops()
    assert ag.tensor([1.0]).demo_m().tolist() == [2.0]


def test_a_callable_that_is_not_a_function_is_still_bound_as_a_method(plugins):
    class Scale:
        """Multiply by a factor."""

        def __call__(self, input, factor=5):
            return input * factor

    register_plugin(_Ops(("demo_scale", Scale(), "demo_scale", False)), name="demo")
    t = ag.tensor([1.0])
    assert t.demo_scale().tolist() == [5.0]
    assert t.demo_scale(factor=2).tolist() == [2.0]


def test_first_access_in_a_fresh_interpreter_loads_the_plugin_method(run_python):
    out = run_python(
        "import json, sys\n"
        "import arraygrad as ag\n"
        "from arraygrad.plugins import hookimpl, register_plugin\n"
        "from arraygrad.tensor import Tensor\n"
        "class Ops:\n"
        "    @hookimpl\n"
        "    def arraygrad_register_ops(self, registry):\n"
        "        registry.op('demo_fresh', lambda input: input * 2, method='demo_fresh')\n"
        "register_plugin(Ops(), name='demo-fresh')\n"
        "before = 'demo_fresh' in Tensor.__dict__\n"
        "value = ag.tensor([1.5]).demo_fresh().tolist()\n"
        "print(json.dumps([before, value, 'demo_fresh' in Tensor.__dict__,\n"
        "                  '__getattr__' in Tensor.__dict__]))\n")
    assert out == [False, [3.0], True, False]
