"""``arraygrad.jit``: script and trace return the object itself and compute what the eager
program computes; the annotations change nothing; PyTorch's checks and messages where it has
them (compared with PyTorch where installed)."""

from __future__ import annotations

import warnings
from typing import Dict, List, Optional, Tuple

import pytest

import arraygrad as ag
from arraygrad import jit, nn

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    def forward(self, x):
        if jit.is_scripting():
            raise AssertionError("the Python path runs")
        return self.helper(x).relu()

    @jit.ignore
    def helper(self, x):
        return self.lin(x)

    @jit.export
    def other(self, x):
        return x * 2

    @jit.unused
    def unused_method(self, x):
        return x


def test_script_returns_the_module_and_it_computes_the_same():
    m = Net()
    x = ag.randn(4, 3)
    s = jit.script(m)
    assert s is m
    assert ag.equal(s(x), m.lin(x).relu())
    assert Net.helper._torchscript_modifier.name == "IGNORE"
    assert Net.other._torchscript_modifier.name == "EXPORT"


def test_script_of_function_class_and_containers():
    def f(x: ag.Tensor) -> ag.Tensor:
        return x + 1

    assert jit.script(f) is f
    assert jit.script(Net) is Net
    d = {"a": 1}
    sd = jit.script(d)
    assert sd == d and sd is not d
    with pytest.warns(FutureWarning, match="`optimize` is deprecated"):
        jit.script(f, optimize=True)


def test_trace_runs_once_and_returns_the_callable():
    seen = []

    def f(x):
        seen.append(jit.is_tracing())
        return x * 2

    traced = jit.trace(f, ag.ones(2))
    assert traced is f and seen == [True] and not jit.is_tracing()
    assert traced(ag.ones(3)).tolist() == [2.0, 2.0, 2.0]
    jit.trace(f, example_kwarg_inputs={"x": ag.ones(1)})
    assert seen == [True, False, True]


def test_trace_module_runs_forward_like_pytorch_side_effects():
    bn = nn.BatchNorm1d(2)
    traced = jit.trace(bn, (ag.tensor([[1.0, 2.0], [3.0, 6.0]]),))
    assert traced is bn
    assert bn.running_mean.tolist() == pytest.approx([0.2, 0.4])  # the trace run updated it
    out = jit.trace_module(bn, {"forward": ag.ones(2, 2)})
    assert out is bn


def test_trace_argument_errors():
    with pytest.raises(RuntimeError, match="example_kwarg_inputs should be a dict"):
        jit.trace(nn.Linear(2, 2))
    with pytest.raises(AttributeError, match="expected torch.nn.Module"):
        jit.trace_module(lambda x: x, {"forward": ag.ones(1)})
    with pytest.raises(AttributeError, match="expected a dictionary"):
        jit.trace_module(nn.Linear(2, 2), ag.ones(2))


def test_freeze_and_optimize_for_inference():
    m = Net()
    with pytest.raises(RuntimeError, match="only implemented for modules in eval mode"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            jit.freeze(m)
    with pytest.warns(DeprecationWarning):
        assert jit.freeze(m.eval()) is m
    m.train()
    with pytest.warns(DeprecationWarning):
        assert jit.optimize_for_inference(m) is m
    assert not m.training
    with pytest.raises(RuntimeError, match="expects a ScriptModule"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            jit.freeze(lambda x: x)


def test_script_module_subclass_and_attribute():
    class Counter(jit.ScriptModule):
        def __init__(self):
            super().__init__()
            self.count = jit.Attribute(0, int)

        @jit.script_method
        def forward(self, x):
            self.count += 1
            return x + self.count

    c = Counter()
    assert c.count == 0
    assert c(ag.zeros(1)).tolist() == [1.0]
    assert isinstance(c, nn.Module)
    with pytest.raises(RuntimeError, match="TorchScript compiler"):
        c.define("def f(self): return 1")


def test_annotations():
    assert jit.annotate(List[int], [1]) == [1]

    @jit.interface
    class I:
        pass

    with pytest.raises(RuntimeError, match="must be applied to a class"):
        jit.interface(lambda: 0)
    with pytest.raises(RuntimeError, match="must be a bool or a function"):
        jit.ignore("yes")
    with pytest.warns(FutureWarning, match="ignore\\(True\\) has been deprecated"):
        jit.ignore(True)(lambda: 0)
    wrapped = jit.script_if_tracing(lambda x: x + 1)
    assert wrapped(1) == 2


@pytest.mark.parametrize("obj,target,expected", [
    ([1, 2], List[int], True), ([1, "a"], List[int], False), ({"a": 1}, Dict[str, int], True),
    ({"a": "b"}, Dict[str, int], False), ((1, "a"), Tuple[int, str], True),
    ((1, 2), Tuple[int, str], False), (None, Optional[int], True), (3, Optional[int], True),
    (1.0, (int, str), False), ("x", (int, str), True), ([], List[int], True),
])
def test_isinstance_like_pytorch(obj, target, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert jit.isinstance(obj, target) is expected
        if torch is not None:
            assert torch.jit.isinstance(obj, target) is expected


def test_isinstance_of_tensors_and_bad_target():
    assert jit.isinstance([ag.ones(1)], List[ag.Tensor])
    with pytest.raises(RuntimeError, match="must be a type or a tuple of types"):
        jit.isinstance(1, "int")


def test_fork_and_wait():
    fut = jit.fork(lambda a, b=0: a + b, 1, b=2)
    assert fut.done() and jit.wait(fut) == 3
    assert ag.fork is jit.fork and ag.wait is jit.wait

    def bad():
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):  # raised at once, as PyTorch's eager fork
        jit.fork(bad)


@needs_torch
def test_executor_settings_like_pytorch():
    assert jit.set_fusion_strategy([("DYNAMIC", 3)]) == [("STATIC", 2), ("DYNAMIC", 10)]
    assert jit.set_fusion_strategy([("STATIC", 2), ("DYNAMIC", 10)]) == [("DYNAMIC", 3)]
    assert jit.onednn_fusion_enabled() is torch.jit.onednn_fusion_enabled() is False
    jit.enable_onednn_fusion(True)
    assert jit.onednn_fusion_enabled()
    jit.enable_onednn_fusion(False)
    with jit.optimized_execution(False), jit.fuser("fuser1"):
        pass
    with pytest.raises(Exception, match="unrecognized fuser option \\(name: bad\\)"):
        with jit.fuser("bad"):
            pass
    with pytest.warns(UserWarning, match="Only works in script mode"):
        with jit.strict_fusion():
            pass


def test_listed_names_say_why():
    with pytest.raises(AttributeError, match="TorchScript archive"):
        jit.save  # noqa: B018
    with pytest.raises(AttributeError, match="TorchScript"):
        jit.CompilationUnit  # noqa: B018


def test_error_classes():
    assert issubclass(jit.Error, Exception)
    assert issubclass(jit.TracerWarning, Warning)
    err = jit.TracingCheckError("diff", None, "extra")
    assert "Graphs differed" in str(err) and "extra" in str(err)
