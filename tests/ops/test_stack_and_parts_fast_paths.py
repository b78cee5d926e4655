"""``stack`` of one backend, shape and dtype checked in one pass (``ops.fast.uniform_arrays``),
the NumPy backend's ``stack`` as one ``concatenate``, and the parts of an ``unbind`` (iterating
a tensor) made without a node when nothing records: each the same values, views and errors as
the general path (``reference_mode``) and PyTorch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops.rule import reference_mode
from arraygrad_numpy.backend import _stack

SHAPES = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


@settings(max_examples=60, deadline=None)
@given(SHAPES, st.integers(1, 5), st.data())
def test_numpy_stack_kernel_is_numpys_stack(shape, n, data):
    dtypes = data.draw(st.lists(st.sampled_from([np.float32, np.float64, np.int64, np.bool_]),
                                min_size=n, max_size=n))
    arrays = [np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape).astype(d) + i
              for i, d in enumerate(dtypes)]
    axis = data.draw(st.integers(-len(shape) - 1, len(shape)))
    got, want = _stack(arrays, axis=axis), np.stack(arrays, axis=axis)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got, want)
    got[...] = 0  # a fresh array, not a view of an input
    assert np.array_equal(arrays[0], np.arange(arrays[0].size).reshape(shape).astype(dtypes[0]))


def test_numpy_stack_kernel_refuses_mixed_shapes_as_numpy():
    with pytest.raises(ValueError, match="same shape"):
        _stack([np.ones(3), np.ones(2)])
    with pytest.raises(ValueError, match="same shape"):  # sizes that concatenate would join
        _stack([np.ones((3, 2)), np.ones((1, 2)), np.ones((2, 2))], axis=0)


@settings(max_examples=40, deadline=None)
@given(SHAPES, st.integers(1, 4), st.booleans(), st.data())
def test_stack_fast_path_matches_the_general_path(shape, n, grad, data):
    dim = data.draw(st.integers(-len(shape) - 1, len(shape)))
    tensors = [ag.arange(float(np.prod(shape))).reshape(shape) * (i + 1) for i in range(n)]
    if grad:
        tensors = [t.requires_grad_() for t in tensors]
    got = ag.stack(tensors, dim=dim)
    with reference_mode():
        want = ag.stack(tensors, dim=dim)
    assert got.shape == want.shape and got.tolist() == want.tolist()
    assert type(got.grad_fn).__name__ == type(want.grad_fn).__name__
    if grad and got.numel():
        (gs,) = ag.autograd.grad(got.sum(), tensors[:1])
        assert gs.tolist() == ag.ones(shape).tolist()


def test_stack_keeps_its_checks_and_messages():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, "
                                           r"but got \[2\] at entry 0 and \[3\] at entry 1"):
        ag.stack([ag.ones(2), ag.ones(3)])
    with pytest.raises(TypeError, match="expected Tensors"):
        ag.stack([ag.ones(2), [1.0, 2.0]])
    with pytest.raises(IndexError):
        ag.stack([ag.ones(2), ag.ones(2)], dim=3)
    assert ag.stack((ag.ones(2), ag.zeros(2, dtype=ag.int64))).dtype == ag.float32


def test_stack_matches_pytorch():
    torch = pytest.importorskip("torch")
    data = np.arange(1800) % 31
    ix = [5, 0, 1700, 33]
    ours = ag.stack([ag.tensor(data)[i:i + 8] for i in ag.tensor(ix)])
    theirs = torch.stack([torch.tensor(data)[i:i + 8] for i in torch.tensor(ix)])
    assert ours.tolist() == theirs.tolist()
    for dim in (0, 1, -1):
        a = [ag.arange(6.0).reshape(2, 3) + k for k in range(3)]
        t = [torch.arange(6.0).reshape(2, 3) + k for k in range(3)]
        assert ag.stack(a, dim=dim).tolist() == torch.stack(t, dim=dim).tolist()


@pytest.mark.parametrize("of_a_view", [False, True])
def test_iterated_parts_are_views_that_write_through(of_a_view):
    base = ag.arange(12.0).reshape(4, 3).clone()
    x = base[1:] if of_a_view else base
    parts = list(x)
    assert all(p._base is base for p in parts)
    assert all(p._version == x._version for p in parts)
    parts[1].mul_(10)  # outside the graph: into the tensor, as in PyTorch
    row = 2 if of_a_view else 1
    assert base[row].tolist() == [10.0 * v for v in range(3 * row, 3 * row + 3)]
    assert x._version == parts[0]._version == 1  # one counter shared
    with reference_mode():
        want = list(x)
    assert [p.tolist() for p in parts] == [w.tolist() for w in want]
    assert [p.stride() for p in parts] == [w.stride() for w in want]


def test_iterated_parts_replay_from_their_base():
    """A part's view function (what a write through another view of the base replays)."""
    base = ag.arange(6.0).reshape(3, 2).clone()
    parts = list(base[1:])
    fresh = ag.arange(6.0).reshape(3, 2) * -1
    assert parts[0]._view.replay(fresh).tolist() == [-2.0, -3.0]
    assert parts[1]._view.replay(fresh).tolist() == [-4.0, -5.0]


def test_split_parts_keep_their_own_strides():
    x = ag.arange(20.0).reshape(4, 5)
    parts = x.split([2, 3], dim=1)
    with reference_mode():
        want = x.split([2, 3], dim=1)
    assert [p.stride() for p in parts] == [w.stride() for w in want] == [(5, 1), (5, 1)]
    assert [p.is_contiguous() for p in parts] == [False, False]


def test_iteration_under_no_grad_and_forward_ad_still_records_what_it_must():
    x = ag.randn(3, 2, requires_grad=True)
    with ag.no_grad():
        assert all(p.grad_fn is None and not p.requires_grad for p in x)
    import arraygrad.autograd.forward_ad as fwAD

    with fwAD.dual_level():
        dual = fwAD.make_dual(ag.randn(3, 2), ag.ones(3, 2))
        rows = list(dual)
        assert [fwAD.unpack_dual(r).tangent.tolist() for r in rows] == [[1.0, 1.0]] * 3


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=1, max_size=3).map(tuple), st.booleans(),
       st.data())
def test_split_parts_have_the_strides_of_indexing(shape, transposed, data):
    """``split``/``chunk`` normalise the input's strides once per part shape: each part's
    strides and contiguity are those of the same slice read by indexing, and PyTorch's."""
    x = ag.arange(int(np.prod(shape)), dtype=ag.float32).reshape(shape)
    if transposed and len(shape) > 1:
        x = x.transpose(0, -1)
    d = data.draw(st.integers(0, x.ndim - 1))
    size = data.draw(st.integers(1, x.shape[d]))
    parts = x.split(size, d)
    start = 0
    for part in parts:
        key = (slice(None),) * d + (slice(start, start + part.shape[d]),)
        assert part.stride() == x[key].stride()
        assert part.is_contiguous() == x[key].is_contiguous()
        start += part.shape[d]
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    t = torch.arange(int(np.prod(shape)), dtype=torch.float32).reshape(shape)
    if transposed and len(shape) > 1:
        t = t.transpose(0, -1)
    for ours, theirs in zip(parts, t.split(size, d)):
        if 1 not in ours.shape:  # (a size-1 dim's stride: docs/differences.md, "Tensors")
            assert ours.stride() == theirs.stride()
