"""``as_strided`` and ``Tensor.unfold`` inside ``arraygrad.compile``: recorded (their portable
copies: a view of memory cannot be recorded) without a graph break, with eager values."""

from __future__ import annotations

import warnings

import arraygrad as ag


def _fn(x):
    return (x.unfold(0, 3, 1) * 2).sum(-1) + x.as_strided((2, 2), (1, 2), 1).sum()


def test_compiled_strided_views_record_without_a_graph_break():
    f = ag.compile(_fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break warns
        for i in range(3):
            x = ag.arange(6.) + i
            assert f(x).tolist() == _fn(x).tolist()


def test_compiled_unfold_gradients():
    f = ag.compile(lambda y: (y.unfold(0, 2, 2) ** 2).sum())
    y = ag.randn(6, dtype=ag.float64, requires_grad=True)
    for _ in range(3):
        y.grad = None
        f(y).backward()
        assert y.grad.tolist() == (2 * y).tolist()
