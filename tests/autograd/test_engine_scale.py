"""The engine at scale: deep graphs without recursion, and memory released after backward."""

import gc
import sys
import weakref

import arraygrad as ag


def test_100k_chain_backward_and_free_without_recursion_error():
    limit = sys.getrecursionlimit()
    x = ag.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0001 + 0.0001
    y.backward()
    expected = 1.0001 ** 100_000
    assert abs(x.grad.item() - expected) / expected < 1e-2
    assert sys.getrecursionlimit() == limit


def test_100k_chain_freed_without_backward():
    x = ag.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0001
    ref = weakref.ref(y.grad_fn)
    del y
    gc.collect()
    assert ref() is None


def test_saved_arrays_released_after_backward():
    x = ag.randn(1000, requires_grad=True)
    y = x.exp()  # saves its output
    node = y.grad_fn
    out_array_ref = weakref.ref(node._saved[0].data) if _weakrefable(node._saved[0].data) else None
    z = (y * y).sum()  # saves y twice
    del y
    z.backward()
    assert node._saved == ()
    if out_array_ref is not None:
        gc.collect()
        assert out_array_ref() is None


def test_retain_graph_keeps_saved_values():
    x = ag.randn(10, requires_grad=True)
    y = x.exp()
    y.sum().backward(retain_graph=True)
    assert y.grad_fn._saved != ()


def test_graph_is_unreachable_after_dropping_outputs():
    x = ag.randn(100, requires_grad=True)
    y = (x.tanh() * x.sigmoid()).sum()
    node_ref = weakref.ref(y.grad_fn)
    y.backward()
    del y
    assert node_ref() is None


def _weakrefable(obj):
    try:
        weakref.ref(obj)
        return True
    except TypeError:
        return False
