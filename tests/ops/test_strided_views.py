"""Strided views: ``as_strided`` (``as_strided_``, ``as_strided_scatter``, ``slice_inverse``),
``Tensor.unfold`` and ``Tensor.view(dtype)``: values, gradients (gradcheck in float64, and
against PyTorch), PyTorch's errors, and view semantics (writes through the view reach the base
and the other way round on NumPy; copies on the strict backend)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

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


def _has_strict():
    return "strict" in {b.name for b in ag.backends.available() if b.available}


# name -> (shape, the same function of either library's tensor)
CASES = {
    "unfold_last": ((3, 7), lambda x: x.unfold(1, 3, 2)),
    "unfold_first_overlapping": ((6, 2), lambda x: x.unfold(0, 4, 1)),
    "unfold_negative_dim": ((2, 5, 3), lambda x: x.unfold(-2, 2, 2)),
    "unfold_empty_window": ((2, 4), lambda x: x.unfold(1, 0, 1)),
    "unfold_of_transpose": ((4, 5), lambda x: (x * 1).t().unfold(1, 2, 1)),
    "as_strided_window": ((10,), lambda x: x.as_strided((3, 3), (2, 1), 1)),
    "as_strided_of_slice": ((10,), lambda x: (x * 1)[2:].as_strided((3, 3), (2, 1), 0)),
    "as_strided_own_offset": ((3, 4), lambda x: (x * 1)[1:].as_strided((2, 2), (1, 4))),
    "as_strided_of_transpose": ((3, 4), lambda x: (x * 1).t().as_strided((2, 2), (1, 2), 1)),
    "slice_inverse": ((10,), lambda x: (x * 1)[2:8:2].slice_inverse((x * 1), 0, 2, 8, 2)),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_torch(name):
    shape, fn = CASES[name]
    a, t = _pair(shape)
    _same(fn(a), fn(t), [(a, t)])


# reading storage outside the input gives those elements no gradient (PyTorch's rule too), which
# finite differences of the base do see: that case is compared with PyTorch only
@pytest.mark.parametrize("name", sorted(set(CASES) - {"as_strided_of_slice"}))
def test_gradcheck(name):
    shape, fn = CASES[name]
    x = ag.randn(*shape, dtype=F64, requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@needs_torch
def test_as_strided_scatter_matches_torch():
    """Values and ``src``'s gradient as PyTorch's. ``input``'s gradient is zero where ``src``
    was written (gradcheck below); PyTorch 2.13 gives the gradient *only* there instead
    (``as_strided_scatter_backward`` copies the written region; docs/differences.md)."""
    a, t = _pair((6,))
    sa, st_ = _pair((2, 2), seed=1)
    fn = lambda m, x, s: m.as_strided_scatter(x * 1, s, (2, 2), (1, 2), 1)  # noqa: E731
    _same(fn(ag, a.detach(), sa), fn(torch, t.detach(), st_), [(sa, st_)])


def test_as_strided_scatter_gradcheck():
    x = ag.randn(6, dtype=F64, requires_grad=True)
    s = ag.randn(2, 2, dtype=F64, requires_grad=True)
    assert gradcheck(lambda x, s: ag.as_strided_scatter(x, s, (2, 2), (1, 2), 1), (x, s))


def test_unfold_is_a_view_both_ways():
    x = ag.arange(12.).reshape(3, 4)
    u = x.unfold(1, 2, 1)
    u[0, 0, 0] = 100.
    assert x[0, 0].item() == 100.
    x.add_(1)
    assert u[0, 0, 0].item() == 101. and u[0, 1, 0].item() == x[0, 1].item()
    assert u._version == x._version


def test_as_strided_is_a_view_of_the_storage():
    base = ag.arange(10.)
    v = base[2:].as_strided((2, 2), (1, 3))  # from the slice's own storage offset, 2
    assert v.tolist() == [[2., 5.], [3., 6.]]
    v.mul_(10)
    assert base.tolist() == [0., 1., 20., 30., 4., 50., 60., 7., 8., 9.]


def test_inplace_through_a_strided_view_of_a_graph_tensor_reaches_the_base_gradient():
    x = ag.randn(6, dtype=F64, requires_grad=True)
    y = x * 2
    y.as_strided((2,), (2,), 1).mul_(3)  # elements 1 and 3
    y.sum().backward()
    assert x.grad.tolist() == [2., 6., 2., 6., 2., 2.]


def test_as_strided_inplace_method_and_function():
    z = ag.arange(6.)
    assert z.as_strided_((2, 2), (1, 2)) is z
    assert z.tolist() == [[0., 2.], [1., 3.]] and tuple(z.stride()) == (1, 2)
    w = ag.arange(6.)
    assert ag.as_strided_(w, (3,), (2,)) is w and w.tolist() == [0., 2., 4.]


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.arange(4.).as_strided((2, 2), (1,)),
    lambda m: m.arange(4.).as_strided((3, 3), (1, 1)),
    lambda m: m.arange(4.).as_strided((2,), (-1,)),
    lambda m: m.arange(4.).as_strided((2,), (1,), -1),
    lambda m: m.arange(4.).as_strided((2,), (1,), 3),
    lambda m: m.arange(6.).view(2, 3).unfold(1, 5, 1),
    lambda m: m.arange(6.).view(2, 3).unfold(1, 2, 0),
    lambda m: m.arange(6.).view(2, 3).unfold(1, -1, 1),
    lambda m: m.arange(6.).view(2, 3).unfold(2, 1, 1),
    lambda m: m.zeros(3).as_strided_scatter(m.ones(3), (2,), (1,)),
    lambda m: m.tensor([1., 2., 3.]).view(m.float64),
    lambda m: m.ones(3, 2).t().view(m.float16),
    lambda m: m.tensor(1.).view(m.float16),
], ids=["strides_length", "out_of_storage", "negative_stride", "negative_offset",
        "offset_out_of_storage", "unfold_too_big", "unfold_step", "unfold_size", "unfold_dim",
        "scatter_src_shape", "view_dtype_size", "view_dtype_stride", "view_dtype_0d"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(ag)
    assert str(ours.value).split(":")[-1].strip()[:40] in str(theirs.value) or \
        str(theirs.value)[:40] in str(ours.value)


@needs_torch
def test_unfold_of_a_0d_tensor():
    assert ag.tensor(3.).unfold(0, 1, 1).tolist() == torch.tensor(3.).unfold(0, 1, 1).tolist()
    assert tuple(ag.tensor(3.).unfold(0, 0, 1).shape) == (0,)


@needs_torch
@pytest.mark.parametrize("src,dst", [("float32", "int32"), ("float64", "int32"),
                                     ("float32", "float16"), ("int64", "float64"),
                                     ("float16", "float32")])
def test_view_dtype_reinterprets_bytes_as_torch(src, dst):
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(src)
    ours = ag.tensor(data.tolist(), dtype=getattr(ag, src)).view(getattr(ag, dst))
    theirs = torch.tensor(data).view(getattr(torch, dst))
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert np.array_equal(ours.numpy(), theirs.numpy(), equal_nan=True)


def test_view_dtype_is_a_view_outside_the_graph():
    x = ag.zeros(2, requires_grad=True)
    w = x.view(ag.int32)
    assert not w.requires_grad
    with ag.no_grad():
        w[0] = 1065353216  # the bits of 1.0f
    assert x.tolist() == [1.0, 0.0]
    same = x.view(dtype=ag.float32)
    assert not same.requires_grad and same._version == x._version


@given(n=st.integers(1, 9), size=st.integers(0, 9), step=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_unfold_windows_property(n, size, step):
    if size > n:
        return
    x = ag.arange(float(n))
    u = x.unfold(0, size, step)
    count = (n - size) // step + 1
    assert tuple(u.shape) == (count, size)
    assert u.tolist() == [[float(i * step + j) for j in range(size)] for i in range(count)]


@pytest.mark.skipif(not _has_strict(), reason="needs the arraygrad-strict backend")
def test_strict_backend_gives_copies_with_the_same_values_and_gradients():
    x = ag.arange(12., dtype=F64).reshape(3, 4).to("strict").requires_grad_()
    u = x.unfold(1, 2, 1)
    v = x.as_strided((2, 2), (1, 4), 1)
    assert u.tolist() == ag.arange(12., dtype=F64).reshape(3, 4).unfold(1, 2, 1).tolist()
    assert v.tolist() == [[1., 5.], [2., 6.]]
    assert u._base is None and v._base is None  # copies: the strict backend has no strides
    (u.sum() + v.sum()).backward()
    assert x.grad.tolist() == [[1., 3., 3., 1.], [1., 3., 3., 1.], [1., 2., 2., 1.]]
    with pytest.raises(RuntimeError, match="view bytes as another dtype"):
        x.detach().view(ag.int64)

