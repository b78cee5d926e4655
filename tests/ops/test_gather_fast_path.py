"""``gather`` reads with one ``take_along_axis`` (``ops.fast.along_key``) and makes its flat
positions only for a backward: the values, gradients and node are the general key's (reference
mode), for indices smaller than the input in the other dimensions too."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops import fast
from arraygrad.ops.rule import fast_paths, reference_mode


@st.composite
def cases(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    d = draw(st.integers(0, len(shape) - 1))
    ishape = tuple(draw(st.integers(1, 5)) if a == d else draw(st.integers(1, s))
                   for a, s in enumerate(shape))
    seed = draw(st.integers(0, 2 ** 16))
    dtype = draw(st.sampled_from(["int64", "int32"]))
    return shape, d, ishape, seed, dtype


@settings(max_examples=60, deadline=None)
@given(cases())
def test_values_and_gradients_are_the_general_keys(case):
    shape, d, ishape, seed, dtype = case
    rng = np.random.default_rng(seed)
    idx = ag.tensor(rng.integers(0, shape[d], ishape).tolist(), dtype=getattr(ag, dtype))
    base = rng.standard_normal(shape).tolist()

    def run():
        x = ag.tensor(base, dtype=ag.float64, requires_grad=True)
        y = x.gather(d, idx)
        (y * ag.arange(y.numel(), dtype=ag.float64).reshape(y.shape)).sum().backward()
        return y.tolist(), x.grad.tolist(), type(y.grad_fn).__name__

    got = run()
    with reference_mode():
        assert got == run()
    want = np.take_along_axis(np.asarray(base)[tuple(slice(0, s) for s in ishape[:d]) + (
        slice(None),) + tuple(slice(0, s) for s in ishape[d + 1:])], np.asarray(idx.tolist()), d)
    assert got[0] == want.tolist()


def test_double_backward_and_repeated_indices():
    x = ag.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=ag.float64, requires_grad=True)
    idx = ag.tensor([[0, 0, 2], [1, 1, 1]])
    fn = lambda v: v.gather(1, idx) ** 2  # noqa: E731
    assert ag.autograd.gradcheck(fn, (x,)) and ag.autograd.gradgradcheck(fn, (x,))
    fn(x).sum().backward()
    assert x.grad.tolist() == [[4.0, 0.0, 6.0], [0.0, 30.0, 0.0]]


def test_taken_only_for_native_indices():
    if not fast_paths.on:
        pytest.skip("reference mode: no fast path")
    x, idx = ag.randn(3, 4), ag.tensor([[0], [2], [1]])
    assert fast.along_key(x, idx, 1) is not None
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.gather(1, ag.tensor([[4], [0], [0]]))
    with pytest.raises(RuntimeError, match="out of bounds"):
        x.gather(1, ag.tensor([[-1], [0], [0]]))


def test_matches_pytorch():
    torch = pytest.importorskip("torch")
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]
    a = ag.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    ya = a.gather(0, ag.tensor([[2, 0], [1, 1]]))
    yt = t.gather(0, torch.tensor([[2, 0], [1, 1]]))
    ya.sum().backward(), yt.sum().backward()
    assert ya.tolist() == yt.tolist() and a.grad.tolist() == t.grad.tolist()
    assert type(ya.grad_fn).__name__ == type(yt.grad_fn).__name__
