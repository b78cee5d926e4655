"""The ``shaping`` op family (fliplr ... triu_indices) and ``narrow``'s negative start:
values and gradients against PyTorch (skipped without it), errors, in-place forms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from torch_compare import float64_pair as _pair, needs_torch, same_as_torch as _same, torch

F64 = ag.float64


# name -> (shape, function applied to either library's tensor)
CASES = {
    "fliplr": ((3, 4, 2), lambda m, x: m.fliplr(x)),
    "flipud": ((3, 4), lambda m, x: x.flipud()),
    "roll_flat": ((3, 4), lambda m, x: m.roll(x, 5)),
    "roll_dims": ((3, 4, 2), lambda m, x: m.roll(x, (1, -3), (0, -1))),
    "roll_method": ((3, 4), lambda m, x: x.roll(-1, 1)),
    "rot90_k1": ((3, 4), lambda m, x: m.rot90(x)),
    "rot90_k2": ((3, 4, 2), lambda m, x: m.rot90(x, 2, (0, 2))),
    "rot90_k3": ((3, 4, 2), lambda m, x: x.rot90(-1, (2, 1))),
    "rot90_k0": ((3, 4), lambda m, x: m.rot90(x, 4)),
    "tile": ((3, 2), lambda m, x: m.tile(x, (2, 1, 3))),
    "tile_short": ((3, 2), lambda m, x: x.tile(2)),
    "repeat_interleave_flat": ((2, 3), lambda m, x: m.repeat_interleave(x, 2)),
    "repeat_interleave_dim": ((2, 3), lambda m, x: x.repeat_interleave(3, dim=-1)),
    "repeat_interleave_tensor": ((3, 2), lambda m, x: x.repeat_interleave(m.tensor([2, 0, 1]), dim=0)),
    "repeat_interleave_one": ((3, 2), lambda m, x: x.repeat_interleave(m.tensor([2]), dim=1)),
    "tensor_split_sections": ((7, 2), lambda m, x: m.tensor_split(x, 3)),
    "tensor_split_indices": ((7, 2), lambda m, x: x.tensor_split([2, -1, 9], 0)),
    "tensor_split_tensor": ((2, 5), lambda m, x: m.tensor_split(x, m.tensor([1, 4]), 1)),
    "hsplit": ((2, 6), lambda m, x: m.hsplit(x, 3)),
    "hsplit_1d": ((6,), lambda m, x: x.hsplit([1, 4])),
    "vsplit": ((4, 3), lambda m, x: m.vsplit(x, 2)),
    "dsplit": ((2, 2, 4), lambda m, x: m.dsplit(x, [3])),
    "moveaxis": ((2, 3, 4), lambda m, x: m.moveaxis(x, (0, 1), (2, 0))),
    "swapdims": ((2, 3, 4), lambda m, x: x.swapdims(0, -1)),
    "unflatten": ((2, 12), lambda m, x: m.unflatten(x, 1, (3, -1, 2))),
    "ravel": ((2, 3), lambda m, x: x.t().ravel()),
    "atleast_1d": ((), lambda m, x: m.atleast_1d(x)),
    "atleast_2d": ((3,), lambda m, x: m.atleast_2d(x)),
    "atleast_3d_1d": ((3,), lambda m, x: m.atleast_3d(x)),
    "atleast_3d_2d": ((2, 3), lambda m, x: m.atleast_3d(x)),
    "atleast_3d_many": ((2, 3), lambda m, x: m.atleast_3d([x, x[0], x[0, 0]])),
    "tril": ((4, 3), lambda m, x: m.tril(x)),
    "tril_offset": ((2, 3, 4), lambda m, x: x.tril(diagonal=-1)),
    "triu_offset": ((2, 3, 4), lambda m, x: m.triu(x, 2)),
    "triu_far": ((3, 4), lambda m, x: x.triu(-9)),
    "narrow_negative": ((5, 3), lambda m, x: m.narrow(x, 0, -3, 2)),
    "narrow_method": ((5, 3), lambda m, x: x.narrow(-1, -3, 3)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    shape, fn = CASES[name]
    a, t = _pair(shape)
    _same(fn(ag, a), fn(torch, t), [(a, t)])


@needs_torch
@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=2, max_size=4), data=st.data())
def test_roll_rot90_tril_match_pytorch_on_random_shapes(shape, data):
    n = len(shape)
    a, t = _pair(tuple(shape), seed=len(shape))
    dims = data.draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=n, unique=True))
    shifts = data.draw(st.lists(st.integers(-6, 6), min_size=len(dims), max_size=len(dims)))
    _same(ag.roll(a, shifts, dims), torch.roll(t, shifts, dims))
    k = data.draw(st.integers(-5, 5))
    d0, d1 = data.draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
    _same(ag.rot90(a, k, (d0, d1)), torch.rot90(t, k, (d0, d1)))
    diagonal = data.draw(st.integers(-5, 5))
    _same(ag.tril(a, diagonal), torch.tril(t, diagonal))
    _same(ag.triu(a, diagonal), torch.triu(t, diagonal))
    sections = data.draw(st.integers(1, 6))
    _same(ag.tensor_split(a, sections, -1), torch.tensor_split(t, sections, -1))


@needs_torch
@pytest.mark.parametrize("row,col,offset", [(3, 4, 0), (4, 3, -1), (3, 3, 2), (0, 3, 0), (5, 2, -7), (2, 5, 9)])
def test_tri_indices_match_pytorch(row, col, offset):
    for name in ("tril_indices", "triu_indices"):
        ours = getattr(ag, name)(row, col, offset)
        assert ours.dtype is ag.int64
        assert ours.tolist() == getattr(torch, name)(row, col, offset).tolist()


@needs_torch
def test_repeat_interleave_of_repeats_alone_matches_pytorch():
    assert ag.repeat_interleave(ag.tensor([1, 0, 3])).tolist() == \
        torch.repeat_interleave(torch.tensor([1, 0, 3])).tolist()


def test_narrow_wraps_a_negative_start():
    # failed before: a negative start was taken as a Python slice start, giving an empty tensor
    x = ag.arange(4.0)
    assert ag.narrow(x, 0, -2, 2).tolist() == [2.0, 3.0]
    assert x.narrow(0, -4, 4).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert ag.narrow(x, 0, 4, 0).tolist() == []


@pytest.mark.parametrize("start,length,error", [(5, 0, IndexError), (-5, 1, IndexError),
                                                (2, 3, RuntimeError), (1, -1, RuntimeError)])
def test_narrow_out_of_range_raises(start, length, error):
    with pytest.raises(error, match="narrow|start|length"):
        ag.narrow(ag.arange(4.0), 0, start, length)


def test_second_derivatives_of_composites():
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=F64, requires_grad=True)
    y = (ag.tril(x) ** 3).sum() + (ag.roll(x, 1, 0) ** 2 * x).sum()
    (g,) = ag.autograd.grad(y, x, create_graph=True)
    (gg,) = ag.autograd.grad(g.sum(), x)
    # d2/dx2 of sum(tril(x)^3) is 6x on the lower triangle; of sum(roll(x)^2 x), per column
    # (a, b) -> a^2 b + b^2 a, whose Hessian's row sums are 2a + 4b (for a) and 4a + 2b (for b)
    lower = np.array([[1.0, 0.0], [1.0, 1.0]])
    xs = np.array([[1.0, 2.0], [3.0, 4.0]])
    expected = 6 * xs * lower + 2 * xs + 4 * xs[::-1]
    np.testing.assert_allclose(np.array(gg.tolist()), expected)


def test_tril_zeroes_infinities_outside_the_triangle():
    x = ag.tensor([[1.0, float("inf")], [float("nan"), 2.0]])
    assert ag.triu(x).tolist()[1][0] == 0.0
    assert ag.tril(x).tolist()[0][1] == 0.0


def test_inplace_tril_triu():
    x = ag.arange(9.0).reshape(3, 3)
    assert x.tril_(-1) is x
    assert x.tolist() == [[0.0, 0.0, 0.0], [3.0, 0.0, 0.0], [6.0, 7.0, 0.0]]
    y = ag.arange(4.0).reshape(2, 2)
    y.triu_()
    assert y.tolist() == [[0.0, 1.0], [0.0, 3.0]]


@pytest.mark.parametrize("call,error", [
    (lambda x: ag.fliplr(x[0]), RuntimeError),
    (lambda x: ag.flipud(x[0, 0]), RuntimeError),
    (lambda x: ag.roll(x, (1, 2), 0), RuntimeError),
    (lambda x: ag.roll(x, (1, 2)), RuntimeError),
    (lambda x: ag.roll(x, 1, 5), IndexError),
    (lambda x: ag.rot90(x, 1, (0, 0)), RuntimeError),
    (lambda x: ag.rot90(x, 1, (0,)), RuntimeError),
    (lambda x: ag.rot90(x[0], 1), RuntimeError),
    (lambda x: ag.repeat_interleave(x, -1), RuntimeError),
    (lambda x: x.repeat_interleave(ag.tensor([1, 2]), dim=0), RuntimeError),
    (lambda x: x.repeat_interleave(ag.tensor([1, -1, 1]), dim=0), RuntimeError),
    (lambda x: ag.tensor_split(x, 0), RuntimeError),
    (lambda x: ag.tensor_split(x[0, 0], 2), RuntimeError),
    (lambda x: ag.hsplit(x, 3), RuntimeError),
    (lambda x: ag.vsplit(x[0], 2), RuntimeError),
    (lambda x: ag.dsplit(x, 2), RuntimeError),
    (lambda x: ag.unflatten(x, 1, (3, 3)), RuntimeError),
    (lambda x: ag.unflatten(x, 1, ()), RuntimeError),
    (lambda x: ag.tril(x[0]), RuntimeError),
    (lambda x: ag.triu(x[0, 0]), RuntimeError),
])
def test_errors_are_pytorchs_classes(call, error):
    x = ag.zeros(3, 4)
    with pytest.raises(error):
        call(x)
    assert x.shape == (3, 4)


def test_function_method_and_inplace_surface():
    for name in ("fliplr", "flipud", "roll", "rot90", "tile", "repeat_interleave", "tensor_split",
                 "hsplit", "vsplit", "dsplit", "moveaxis", "swapdims", "unflatten", "ravel",
                 "tril", "triu"):
        assert callable(getattr(ag, name)) and callable(getattr(ag.Tensor, name))
    for name in ("atleast_1d", "atleast_2d", "atleast_3d", "tril_indices", "triu_indices"):
        assert callable(getattr(ag, name))
    assert callable(ag.Tensor.tril_) and callable(ag.Tensor.triu_)
