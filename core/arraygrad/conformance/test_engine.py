"""Autograd engine semantics on the backend: hooks, retain_graph, version counters, no_grad."""

from __future__ import annotations

import gc
import weakref
from typing import TYPE_CHECKING, Any

import pytest

import arraygrad as ag
from arraygrad.conformance._suite import suite_test
from arraygrad.conformance.compare import assert_close, tolerances

if TYPE_CHECKING:
    from arraygrad.conformance.context import Context


def _leaf(ctx: Context, data: Any = (1.0, 2.0, 3.0)) -> Any:
    return ag.tensor(list(data), dtype=ctx.float, device=ctx.device, requires_grad=True)


def hooks(ctx: Context) -> None:
    ctx.require_values("the hooks check (gradients seen by the hooks)")
    x = _leaf(ctx)
    seen = []
    y = x * 2
    y.register_hook(lambda g: seen.append(g.tolist()))
    handle = x.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert seen == [[1.0, 1.0, 1.0]] and x.grad.tolist() == [20.0, 20.0, 20.0]
    handle.remove()
    x.grad = None
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]


def retain_graph_error(ctx: Context) -> None:
    x = _leaf(ctx)
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def retain_graph_accumulates(ctx: Context) -> None:
    x = _leaf(ctx)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert_close(x.grad, ag.tensor([4.0, 8.0, 12.0], dtype=ctx.float), 0.0, 0.0,
                 what="accumulated gradient")


def inplace_version_error(ctx: Context) -> None:
    x = _leaf(ctx)
    y = x.exp()
    z = y * 2
    y.add_(1)  # exp saved its output for backward
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def no_grad(ctx: Context) -> None:
    x = _leaf(ctx)
    with ag.no_grad():
        y = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert (x * 2).requires_grad


def create_graph(ctx: Context) -> None:
    x = _leaf(ctx)
    (g,) = ag.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (gg,) = ag.autograd.grad(g.sum(), x)
    assert gg.device == ctx.device
    # d2/dx2 x**3 = 6x, through pow: a device's pow may be an ulp off, so not compared exactly
    assert_close(gg, ag.tensor([6.0, 12.0, 18.0], dtype=ctx.float), *tolerances(ctx.float),
                 what="second derivative")


def memory_release(ctx: Context) -> None:
    x = _leaf(ctx)
    h = x.exp()
    ref = weakref.ref(h)
    y = (h * h).sum()
    del h
    y.backward()  # frees the saved tensors: nothing may keep ``h`` alive now
    gc.collect()
    assert ref() is None, "an intermediate saved for backward outlived backward()"


CHECKS = {
    "hooks": hooks, "retain_graph_error": retain_graph_error,
    "retain_graph_accumulates": retain_graph_accumulates,
    "inplace_version_error": inplace_version_error, "no_grad": no_grad,
    "create_graph": create_graph, "memory_release": memory_release,
}

test_engine = suite_test(CHECKS)
