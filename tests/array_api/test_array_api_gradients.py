"""Gradients flow through code written only against the Array API standard: functions that
see nothing but ``x.__array_namespace__()`` are checked against float64 finite differences
(``arraygrad.autograd.gradcheck``), over hypothesis-drawn shapes for one of them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import arraygrad as ag
from arraygrad.autograd import gradcheck


def standardise(x):
    """Library code of the kind scikit-learn holds: it knows only the standard."""
    xp = x.__array_namespace__()
    centred = x - xp.mean(x, axis=0, keepdims=True)
    scale = xp.std(x, axis=0, correction=1, keepdims=True)
    return centred / xp.clip(scale, 1e-3, None)


def mixed(x, y):
    """Many of the namespace's functions in one computation, each with a gradient rule."""
    xp = x.__array_namespace__()
    a = xp.concat([x, xp.flip(y, axis=0)], axis=0)  # (4, 3)
    b = xp.cumulative_sum(a, axis=1, include_initial=True)  # (4, 4)
    c = xp.matmul(xp.linalg.matrix_transpose(b), b) + 4 * xp.eye(4, dtype=x.dtype)
    solved = xp.linalg.solve(c, xp.take(b, xp.asarray([-1, 0]), axis=0).mT)
    spectrum = xp.abs(xp.fft.rfft(a, axis=1))
    picked = xp.where(a > 0, xp.exp(a), xp.square(a))
    return (xp.sum(solved) + xp.max(spectrum, axis=1) @ xp.linalg.vecdot(a, a)[:, None]
            + xp.sum(xp.var(picked, axis=(0, 1))) + xp.sum(xp.take_along_axis(
                a, xp.asarray([[2], [0], [1], [-1]]), axis=1)))


def test_gradient_through_many_namespace_functions() -> None:
    rng = np.random.default_rng(0)
    x = ag.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    y = ag.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    assert gradcheck(mixed, (x, y))


@settings(max_examples=8, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=3, max_side=5),
                  elements=st.floats(-3, 3)).filter(lambda a: (a.std(axis=0) > 0.1).all()))
def test_gradient_through_library_code(a: np.ndarray) -> None:
    x = ag.tensor(a, requires_grad=True)
    assert gradcheck(lambda t: standardise(t) ** 3, (x,))
