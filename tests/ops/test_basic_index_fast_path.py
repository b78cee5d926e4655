"""Basic indexing (``x[3]``, ``data[i:i + 8]``, ``x[:, 1:]``) on the fast path
(``ops.fast.basic_key``) is the general path's: the same values, node name, strides,
contiguity, view relation (writes through the view reach the base) and gradients, checked
against reference mode on random keys; and PyTorch's errors where the fast path declines."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops import fast
from arraygrad.ops.rule import fast_paths, reference_mode

SHAPES = [(7,), (4, 5), (3, 4, 5), (2, 1, 3, 2)]


@st.composite
def shape_and_key(draw):
    shape = draw(st.sampled_from(SHAPES))
    n = draw(st.integers(1, len(shape)))
    key = []
    for size in shape[:n]:
        if draw(st.booleans()):
            key.append(draw(st.integers(-size, size - 1)))
        else:
            bound = st.one_of(st.none(), st.integers(-size - 2, size + 2))
            key.append(slice(draw(bound), draw(bound), draw(st.one_of(st.none(), st.integers(1, 3)))))
    as_tuple = n > 1 or draw(st.booleans())
    return shape, tuple(key) if as_tuple else key[0]


def _indexed(shape, key, transposed):
    base = ag.arange(float(np.prod(shape)), dtype=ag.float64).reshape(shape)
    if transposed:  # a non-contiguous input: strides computed, not assumed
        base = base.mT.contiguous().mT if len(shape) > 1 else base
    x = base.clone().requires_grad_()
    y = x[key]
    g = ag.arange(float(y.numel()), dtype=ag.float64).reshape(y.shape) + 1
    (gx,) = ag.autograd.grad(y, x, g)
    return y, gx


@settings(max_examples=60, deadline=None)
@given(shape_and_key(), st.booleans())
def test_fast_basic_indexing_is_the_general_paths(case, transposed):
    shape, key = case
    y, gx = _indexed(shape, key, transposed)
    with reference_mode():
        ry, rgx = _indexed(shape, key, transposed)
    np.testing.assert_array_equal(y.detach().numpy(), ry.detach().numpy())
    np.testing.assert_array_equal(gx.numpy(), rgx.numpy())
    assert y.grad_fn.name() == ry.grad_fn.name()
    assert y.stride() == ry.stride()
    assert y.is_contiguous() == ry.is_contiguous()
    assert y._base is not None and ry._base is not None


def test_fast_key_cases_are_taken():
    if not fast_paths.on:
        pytest.skip("reference mode: no fast path to take")
    x = ag.zeros(4, 5)
    i = ag.tensor(1)
    assert fast.basic_key(x, 3) == ((3, Ellipsis), True, True)
    assert fast.basic_key(x, (slice(i, i + 2),)) == ((slice(1, 3, None), Ellipsis), False, True)
    assert fast.basic_key(x, (slice(None), 2))[2] is False  # a column: strided
    for declined in [None, ..., (0, 0, 0), True, [0, 1], ag.tensor([0]), slice(None, None, -1),
                     slice(0.5, 2), 4, -5, ()]:
        assert fast.basic_key(x, declined) is None, declined


def test_a_view_through_the_fast_path_writes_into_its_base():
    data = ag.arange(10.0)
    i = ag.tensor(2)
    window = data[i:i + 3]
    window.mul_(10)
    assert data.tolist() == [0, 1, 20, 30, 40, 5, 6, 7, 8, 9]
    assert window._version == data._version == 1


@pytest.mark.parametrize("key, error", [
    (5, IndexError), (-6, IndexError), ((0, 0, 0), IndexError),
    (slice(0, 2, -1), ValueError), (slice(ag.tensor(0.5), 2), TypeError),
])
def test_declined_keys_raise_pytorchs_errors(key, error):
    x = ag.zeros(5, 2)
    with pytest.raises(error):
        x[key]


def test_iterating_a_tensor_gives_views_of_its_rows():
    x = ag.arange(6.0).reshape(3, 2)
    rows = list(x)
    assert [r.tolist() for r in rows] == [[0, 1], [2, 3], [4, 5]]
    rows[1].add_(10)
    assert x.tolist() == [[0, 1], [12, 13], [4, 5]]


def test_pytorch_agrees_on_tensor_bounds_and_strides():
    torch = pytest.importorskip("torch")
    a = ag.arange(24.0).reshape(2, 3, 4)
    t = torch.arange(24.0).reshape(2, 3, 4)
    for key in [(1, slice(1, None)), (slice(None), 1), (0, 2, slice(None, None, 2)),
                slice(1, 2), (slice(0, 2), slice(1, 3))]:
        assert a[key].tolist() == t[key].tolist()
        assert a[key].stride() == t[key].stride(), key
        assert a[key].is_contiguous() == t[key].is_contiguous(), key
    i, ti = ag.tensor(1), torch.tensor(1)
    assert a[0, i:i + 2].tolist() == t[0, ti:ti + 2].tolist()


@pytest.mark.parametrize("key", [
    lambda i: i, lambda i: (i, slice(None)), lambda i: (i, ...), lambda i: -i - 1,
    lambda i: i.int(), lambda i: ag.tensor([], dtype=ag.int64),
])
def test_rows_of_an_index_tensor_are_the_general_keys(key):
    """``x[idx]`` (one 1-D index tensor on the leading dimension) is read with one ``take``
    (``ops.fast.rows_key``): the values, gradients (repeats accumulate) and writes of the
    general flat key."""
    idx = ag.tensor([3, 0, 3, 1])
    base = ag.arange(20.0, dtype=ag.float64).reshape(5, 4)

    def run():
        x = base.clone().requires_grad_()
        y = x[key(idx)]
        g = ag.arange(float(y.numel()), dtype=ag.float64).reshape(y.shape) + 1
        (gx,) = ag.autograd.grad(y, x, g) if y.numel() else (ag.zeros_like(x),)
        z = base.clone()
        z[key(idx)] = -1.0
        return y.detach().numpy(), gx.numpy(), z.numpy()

    got = run()
    with reference_mode():
        ref = run()
    for a, b in zip(got, ref):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("rows", [[5], [-6], [0, 7]])
def test_an_index_tensor_out_of_range_raises_pytorchs_error(rows):
    x = ag.zeros(5, 2)
    with pytest.raises(IndexError, match="out of bounds"):
        x[ag.tensor(rows)]


def test_an_index_tensor_is_taken_on_the_fast_path_once_checked():
    if not fast_paths.on:
        pytest.skip("reference mode: no fast path")
    x = ag.zeros(5, 2)
    assert fast.index_rows(x, ag.tensor([1, -1])).rows.tolist() == [1, 4]
    assert fast.index_rows(x, ag.tensor([[1, -1], [0, 2]])).rows.tolist() == [[1, 4], [0, 2]]
    for declined in [ag.tensor([1], dtype=ag.int32), ag.tensor([True] * 5),
                     ag.tensor([9]), [1, 2], ag.tensor(1)]:
        assert fast.index_rows(x, declined) is None


@pytest.mark.parametrize("index_shape", [(3,), (2, 3), (2, 1, 3)])
@pytest.mark.parametrize("input_shape", [(5,), (5, 2), (5, 2, 3)])
def test_rows_of_any_index_shape_are_the_general_keys(index_shape, input_shape):
    rows = np.random.default_rng(1).integers(-5, 5, index_shape).tolist()

    def run():
        x = ag.arange(float(np.prod(input_shape)), dtype=ag.float64).reshape(input_shape)
        x.requires_grad_()
        y = x[ag.tensor(rows)]
        (y * ag.arange(float(y.numel()), dtype=ag.float64).reshape(y.shape)).sum().backward()
        emb = ag.nn.functional.embedding(ag.tensor(rows) % 5, x.detach().reshape(5, -1))
        return y.tolist(), x.grad.tolist(), type(y.grad_fn).__name__, emb.tolist()

    got = run()
    with reference_mode():
        assert got == run()
