"""``torch.compiler``'s controls: ``reset``, ``disable``, ``is_compiling``,
``is_dynamo_compiling``, ``allow_in_graph``, ``cudagraph_mark_step_begin``, ``list_backends``."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import compiler

from .helpers import host, same

X = np.arange(6, dtype=np.float32).reshape(2, 3)


class _Notes:
    """A plain object: the discovery does not walk it, so appending to it is not a change
    of the step's state that keeps the step from being replayed."""

    def __init__(self):
        self.seen = []


def test_is_compiling_is_true_only_while_a_call_records():
    notes = _Notes()

    def fn(x):
        notes.seen.append((compiler.is_compiling(), compiler.is_dynamo_compiling()))
        return x * 2

    compiled = ag.compile(fn)
    # the step appends to a list it reaches: a replay would not, so no recording is replayed
    # (three are tried, then it runs eagerly, saying so)
    with pytest.warns(UserWarning, match="changed Python state"):
        for _ in range(4):
            assert same(host(compiled(ag.tensor(X))), X * 2)
    assert notes.seen == [(True, True)] * 3 + [(False, False)]
    assert compiler.is_compiling() is False and compiler.is_dynamo_compiling() is False


def test_a_disabled_function_is_a_graph_break_with_eager_results():
    @compiler.disable
    def helper(t):
        return t + 1

    def fn(x):
        return helper(x * 2) * 3

    compiled = ag.compile(fn)
    with pytest.warns(UserWarning, match="marked arraygrad.compiler.disable"):
        first = compiled(ag.tensor(X))
    assert same(host(first), (X * 2 + 1) * 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # one warning only: eager from then on
        for _ in range(2):
            assert same(host(compiled(ag.tensor(X))), (X * 2 + 1) * 3)
    assert compiled.stats["replays"] == 0 and compiled.stats["eager"] == 2


def test_a_disabled_function_raises_under_fullgraph_and_changes_nothing():
    w = ag.tensor(np.ones(3, np.float32))

    @compiler.disable(reason="logs to disk")
    def helper(t):
        return t * 1

    def fn(x):
        w.add_(1.0)
        return helper(x + w)

    compiled = ag.compile(fn, fullgraph=True)
    with pytest.raises(compiler.Unsupported, match="logs to disk"):
        compiled(ag.tensor(X))
    assert same(host(w), np.ones(3, np.float32))


def test_compile_of_a_disabled_function_returns_it():
    def f(x):
        return x

    disabled = compiler.disable(f)
    assert ag.compile(disabled) is disabled
    assert compiler.disable(disabled) is disabled
    assert disabled.__name__ == "f" and disabled.__wrapped__ is f
    with pytest.raises(TypeError, match="expects a callable"):
        compiler.disable(3)


def test_reset_forgets_programs_and_eager_decisions():
    compiled = ag.compile(lambda x: x * 2)
    for _ in range(3):
        compiled(ag.tensor(X))
    assert compiled.stats["records"] == 1 and compiled.stats["replays"] == 2
    compiler.reset()
    assert same(host(compiled(ag.tensor(X))), X * 2)
    assert compiled.stats["records"] == 2

    def breaks(x):
        return x * float(x.sum())

    broken = ag.compile(breaks)
    with pytest.warns(UserWarning, match="graph break"):
        broken(ag.tensor(X))
    broken(ag.tensor(X))
    assert broken.stats["eager"] == 1
    compiler.reset()
    with pytest.warns(UserWarning, match="graph break"):  # recorded again, breaks again
        broken(ag.tensor(X))
    assert broken.stats["records"] == 2


def test_the_small_controls():
    def f(x):
        return x

    assert compiler.allow_in_graph(f) is f
    assert compiler.cudagraph_mark_step_begin() is None
    assert compiler.list_backends() == ["inductor"]


@pytest.mark.parametrize("name", ["reset", "disable", "is_compiling", "is_dynamo_compiling",
                                  "allow_in_graph", "cudagraph_mark_step_begin",
                                  "list_backends"])
def test_signatures_match_pytorch(name):
    torch = pytest.importorskip("torch")
    ours = inspect.signature(getattr(compiler, name)).parameters
    theirs = inspect.signature(getattr(torch.compiler, name)).parameters
    assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()]
