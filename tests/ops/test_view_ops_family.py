"""``select``, ``split_with_sizes``, the ``unsafe_`` splits, ``Tensor.sum_to_size``, the view
scatters (``select_scatter``, ``slice_scatter``, ``diagonal_scatter``) and the ``*_copy``
functions: values and gradients against PyTorch, gradcheck, errors, view semantics."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from torch_compare import same_as_torch as _same

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64


def _pair(shape, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape)
    return (ag.tensor(data.tolist(), dtype=F64).reshape(shape).requires_grad_(),
            torch.tensor(data, dtype=torch.float64, requires_grad=True))


ONE_INPUT = {
    "select": ((3, 4), lambda m, x: m.select(x, 1, -1)),
    "select_method": ((3, 4, 2), lambda m, x: x.select(0, 2)),
    "split_with_sizes": ((5, 2), lambda m, x: m.split_with_sizes(x, [2, 3])),
    "split_with_sizes_method": ((2, 5), lambda m, x: x.split_with_sizes([1, 0, 4], dim=1)),
    "unsafe_split": ((5, 2), lambda m, x: m.unsafe_split(x, 2)),
    "unsafe_chunk": ((2, 5), lambda m, x: x.unsafe_chunk(3, 1)),
    "unsafe_split_with_sizes": ((5,), lambda m, x: m.unsafe_split_with_sizes(x, [4, 1])),
    "sum_to_size": ((3, 4), lambda m, x: x.sum_to_size(1, 4)),
    "sum_to_size_tuple": ((2, 3, 4), lambda m, x: x.sum_to_size((3, 1))),
    "sum_to_size_keyword": ((3, 4), lambda m, x: x.sum_to_size(size=(4,))),
    "alias_copy": ((2, 3), lambda m, x: m.alias_copy(x)),
    "as_strided_copy": ((6,), lambda m, x: m.as_strided_copy(x, (2, 2), (1, 2), 1)),
    "diagonal_copy": ((3, 4), lambda m, x: m.diagonal_copy(x, 1)),
    "expand_copy": ((1, 3), lambda m, x: m.expand_copy(x, (2, 3))),
    "narrow_copy": ((4, 3), lambda m, x: m.narrow_copy(x, 0, 1, 2)),
    "narrow_copy_method": ((4, 3), lambda m, x: x.narrow_copy(1, 1, 2)),
    "permute_copy": ((2, 3, 4), lambda m, x: m.permute_copy(x, (2, 0, 1))),
    "select_copy": ((2, 3), lambda m, x: m.select_copy(x, 1, 0)),
    "slice_copy": ((5, 2), lambda m, x: m.slice_copy(x, 0, 1, None, 2)),
    "split_copy": ((5, 2), lambda m, x: m.split_copy(x, 2)),
    "split_with_sizes_copy": ((5, 2), lambda m, x: m.split_with_sizes_copy(x, [1, 4])),
    "squeeze_copy": ((1, 2, 1), lambda m, x: m.squeeze_copy(x)),
    "squeeze_copy_dims": ((1, 2, 1), lambda m, x: m.squeeze_copy(x, [0, 2])),
    "t_copy": ((2, 3), lambda m, x: m.t_copy(x)),
    "transpose_copy": ((2, 3, 4), lambda m, x: m.transpose_copy(x, 0, 2)),
    "unbind_copy": ((3, 2), lambda m, x: m.unbind_copy(x, 1)),
    "unfold_copy": ((7,), lambda m, x: m.unfold_copy(x, 0, 3, 2)),
    "unsqueeze_copy": ((2, 3), lambda m, x: m.unsqueeze_copy(x, -1)),
    "view_copy": ((2, 6), lambda m, x: m.view_copy(x, (3, 4))),
    "detach_copy": ((2, 3), lambda m, x: m.detach_copy(x)),
}

TWO_INPUTS = {
    "select_scatter": (((3, 4), (4,)), lambda m, x, s: m.select_scatter(x, s, 0, 1)),
    "select_scatter_method": (((3, 4), (3,)), lambda m, x, s: x.select_scatter(s, 1, -1)),
    "slice_scatter": (((3, 4), (3, 2)), lambda m, x, s: m.slice_scatter(x, s, 1, 0, 4, 2)),
    "slice_scatter_default": (((3, 4), (3, 4)), lambda m, x, s: m.slice_scatter(x, s)),
    "diagonal_scatter": (((3, 4), (3,)), lambda m, x, s: m.diagonal_scatter(x, s, 1)),
    "diagonal_scatter_dims": (((2, 3, 3), (3, 2)), lambda m, x, s: x.diagonal_scatter(s, 0, 0, 2)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(ONE_INPUT))
def test_one_input_ops_match_torch(name):
    shape, fn = ONE_INPUT[name]
    a, t = _pair(shape)
    if name == "detach_copy":
        _same(fn(ag, a), fn(torch, t))
        return
    _same(fn(ag, a), fn(torch, t), [(a, t)])


@needs_torch
@pytest.mark.parametrize("name", sorted(TWO_INPUTS))
def test_scatters_match_torch(name):
    (xs, ss), fn = TWO_INPUTS[name]
    a, t = _pair(xs)
    sa, st_ = _pair(ss, seed=1)
    _same(fn(ag, a, sa), fn(torch, t, st_), [(a, t), (sa, st_)])


@pytest.mark.parametrize("name", sorted(TWO_INPUTS))
def test_scatters_gradcheck(name):
    (xs, ss), fn = TWO_INPUTS[name]
    x = ag.randn(*xs, dtype=F64, requires_grad=True)
    s = ag.randn(*ss, dtype=F64, requires_grad=True)
    assert gradcheck(lambda x, s: fn(ag, x, s), (x, s))
    assert gradgradcheck(lambda x, s: fn(ag, x, s), (x, s))


def test_select_is_a_view():
    x = ag.zeros(3, 4)
    ag.select(x, 1, -1).add_(2)
    assert x[:, 3].tolist() == [2., 2., 2.] and x[:, :3].sum().item() == 0


def test_copies_are_not_views():
    x = ag.zeros(2, 3)
    for copy in (ag.t_copy(x), ag.select_copy(x, 0, 0), ag.view_copy(x, (6,)), *ag.split_copy(x, 1)):
        copy.add_(1)
    assert x.sum().item() == 0


def test_unsafe_split_pieces_are_not_autograd_views():
    pieces = ag.unsafe_split(ag.ones(4, requires_grad=True) * 1, 2)
    pieces[0].mul_(2)  # a split's pieces would refuse this (several views of one output)
    assert pieces[0].grad_fn.name() == "MulBackward0"
    with pytest.raises(RuntimeError, match="view and is being modified inplace"):
        ag.split(ag.ones(4, requires_grad=True) * 1, 2)[0].mul_(2)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.select(m.zeros(3, 4), 0, 5),
    lambda m: m.select(m.tensor(1.), 0, 0),
    lambda m: m.zeros(3, 4).sum_to_size(5),
    lambda m: m.select_scatter(m.zeros(3, 4), m.ones(1), 0, 1),
    lambda m: m.slice_scatter(m.zeros(3, 4), m.ones(3, 1), 1, 0, 4, 2),
    lambda m: m.diagonal_scatter(m.zeros(3, 4), m.ones(3, 1), 1),
    lambda m: m.split_with_sizes(m.zeros(4), [1, 2]),
], ids=["select_index", "select_0d", "sum_to_size", "select_scatter", "slice_scatter",
        "diagonal_scatter", "split_with_sizes"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(ag)
    assert str(theirs.value).split("(")[0][:30] in str(ours.value)
