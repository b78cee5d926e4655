"""Scatter family against PyTorch (values, gradients, errors) and against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _pair(a, grad=True):
    x = ag.tensor(a, requires_grad=grad)
    t = torch.tensor(a, requires_grad=grad)
    return x, t


def _close(x, t):
    np.testing.assert_allclose(x.detach().numpy(), t.detach().numpy(), rtol=1e-10, atol=1e-12)


def _check(fn_ag, fn_t, arrays, consts=(), grads=True):
    """Forward and every input's gradient (with a random upstream) agree with PyTorch."""
    rng = np.random.default_rng(0)
    xs, ts = zip(*(_pair(a) for a in arrays))
    cx = [ag.tensor(c) for c in consts]
    ct = [torch.tensor(c) for c in consts]
    out, ref = fn_ag(*xs, *cx), fn_t(*ts, *ct)
    _close(out, ref)
    if grads:
        up = rng.standard_normal(tuple(ref.shape))
        out.backward(ag.tensor(up))
        ref.backward(torch.tensor(up))
        for x, t in zip(xs, ts):
            _close(x.grad, t.grad)


def _rand(*shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape)


IDX_REP = np.array([[0, 0, 2, 0], [0, 2, 0, 2]])


@needs_torch
@pytest.mark.parametrize("reduce", REDUCES)
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_matches_torch(reduce, include_self):
    _check(lambda a, s, i: a.scatter_reduce(0, i, s, reduce, include_self=include_self),
           lambda a, s, i: a.scatter_reduce(0, i, s, reduce, include_self=include_self),
           [_rand(3, 4), _rand(2, 4, seed=2)], [IDX_REP])


@needs_torch
@pytest.mark.parametrize("include_self", [True, False])
def test_scatter_reduce_prod_gradient_with_zeros(include_self):
    a = np.array([[0.0, 2.0, 3.0], [4.0, 0.0, 5.0]])
    s = np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 0.0], [3.0, 2.5, 1.0]])
    i = [[0, 1, 0], [0, 0, 0], [1, 1, 0]]
    _check(lambda x, y, i: x.scatter_reduce(0, i, y, "prod", include_self=include_self),
           lambda x, y, i: x.scatter_reduce(0, i, y, "prod", include_self=include_self), [a, s], [i])


@needs_torch
def test_scatter_reduce_ties_share_the_gradient():
    a = np.array([[1.0, 5.0], [0.0, 0.0]])
    s = np.array([[5.0, 2.0], [5.0, 2.0]])
    for r in ("amax", "amin"):
        _check(lambda x, y, i: x.scatter_reduce(0, i, y, r),
               lambda x, y, i: x.scatter_reduce(0, i, y, r), [a, s], [[[0, 0], [0, 0]]])


@needs_torch
@pytest.mark.parametrize("seed", range(6))
def test_scatter_family_random_shapes(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(1, 4))
    shape = tuple(int(n) for n in rng.integers(1, 4, nd))
    dim = int(rng.integers(0, nd))
    ishape = tuple(int(rng.integers(1, n + 1)) if ax != dim else int(rng.integers(1, 5))
                   for ax, n in enumerate(shape))
    idx = rng.integers(0, shape[dim], ishape)
    # src as large as index: PyTorch's own backward mis-shapes the gradient of a larger src
    # (the conformance case scatter/src-larger checks that one by finite differences)
    src = rng.standard_normal(ishape)
    x = rng.standard_normal(shape)
    _check(lambda a, s, i: ag.scatter_add(a, dim, i, s), lambda a, s, i: torch.scatter_add(a, dim, i, s),
           [x, src], [idx])
    for r in REDUCES:
        _check(lambda a, s, i: ag.scatter_reduce(a, dim, i, s, r, include_self=False),
               lambda a, s, i: torch.scatter_reduce(a, dim, i, s, r, include_self=False),
               [x, src], [idx])
    # scatter with unique targets along dim (PyTorch leaves repeats undefined)
    keys = rng.random(tuple(shape[dim] if ax == dim else n for ax, n in enumerate(ishape)))
    uniq = np.take(np.argsort(keys, axis=dim), range(min(ishape[dim], shape[dim])), axis=dim)
    src = rng.standard_normal(uniq.shape)
    _check(lambda a, s, i: ag.scatter(a, dim, i, s), lambda a, s, i: torch.scatter(a, dim, i, s),
           [x, src], [uniq])


@needs_torch
def test_scatter_value_and_deprecated_reduce():
    i = [[0, 1, 2, 0]]
    _check(lambda a, i: a.scatter(0, i, 3.0), lambda a, i: a.scatter(0, i, 3.0), [_rand(3, 4)], [i])
    # PyTorch has no derivative for the deprecated reduce= form: values only
    _check(lambda a, s, i: a.scatter(0, i, s, reduce="multiply"),
           lambda a, s, i: a.scatter(0, i, s, reduce="multiply"), [_rand(3, 4), _rand(1, 4)], [i],
           grads=False)
    _check(lambda a, i: a.scatter(0, i, 2.0, reduce="add"),
           lambda a, i: a.scatter(0, i, 2.0, reduce="add"), [_rand(3, 4)], [i], grads=False)


@needs_torch
def test_index_ops_match_torch():
    i = np.array([0, 3, 0])
    _check(lambda a, s, i: a.index_add(1, i, s, alpha=2.0), lambda a, s, i: a.index_add(1, i, s, alpha=2.0),
           [_rand(3, 4), _rand(3, 3)], [i])
    _check(lambda a, s, i: ag.index_copy(a, 0, i, s), lambda a, s, i: torch.index_copy(a, 0, i, s),
           [_rand(3, 4), _rand(2, 4)], [np.array([2, 0])])
    _check(lambda a, i: a.index_fill(1, i, -1.0), lambda a, i: a.index_fill(1, i, -1.0),
           [_rand(3, 4)], [np.array([1, -1])])
    _check(lambda a, s, i: ag.index_put(a, (i,), s, accumulate=True),
           lambda a, s, i: torch.index_put(a, (i,), s, accumulate=True),
           [_rand(3, 4), _rand(3, 4)], [np.array([0, 2, 0])])
    _check(lambda a, s, i: a.index_put((i,), s), lambda a, s, i: a.index_put((i,), s),
           [_rand(3, 4), _rand(4)], [np.array([0, 2])])


@needs_torch
def test_masked_and_take_put_match_torch():
    m = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
    _check(lambda a, m: a.masked_fill(m, 0.5), lambda a, m: a.masked_fill(m, 0.5), [_rand(2, 3, 4)], [m])
    _check(lambda a, v, m: a.masked_fill(m, v), lambda a, v, m: a.masked_fill(m, v),
           [_rand(3, 4), np.array(2.0)], [m])
    _check(lambda a, m: a.masked_select(m), lambda a, m: a.masked_select(m), [_rand(4)], [m])
    _check(lambda a, s, m: a.masked_scatter(m, s), lambda a, s, m: a.masked_scatter(m, s),
           [_rand(3, 4), _rand(2, 4)], [m])
    _check(lambda a, i: ag.take(a, i), lambda a, i: torch.take(a, i), [_rand(3, 4)], [[[0, -1], [5, 5]]])
    _check(lambda a, s, i: a.put(i, s), lambda a, s, i: a.put(i, s), [_rand(3, 4), _rand(3)], [[0, -1, 5]])
    _check(lambda a, s, i: a.put(i, s, accumulate=True), lambda a, s, i: a.put(i, s, accumulate=True),
           [_rand(3, 4), _rand(3)], [[0, 5, 5]])


def test_inplace_methods_write_into_self():
    x = ag.zeros(3)
    assert x.scatter_(0, ag.tensor([2]), ag.tensor([5.0])) is x
    assert x.tolist() == [0.0, 0.0, 5.0]
    x.index_add_(0, ag.tensor([0, 0]), ag.tensor([1.0, 2.0]))
    x.masked_fill_(ag.tensor([False, True, False]), 7.0)
    x.put_(ag.tensor([-1]), ag.tensor([1.0]), accumulate=True)
    assert x.tolist() == [3.0, 7.0, 6.0]
    x.scatter_reduce_(0, ag.tensor([0, 0]), ag.tensor([4.0, 1.0]), "amax", include_self=False)
    assert x.tolist() == [4.0, 7.0, 6.0]


def test_repeated_writes_keep_one_value_not_their_sum():
    x = ag.zeros(2, 2, requires_grad=True)
    src = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    out = x.scatter(0, ag.tensor([[0, 1], [0, 1]]), src)
    assert out.tolist() == [[3.0, 0.0], [0.0, 4.0]]
    out.sum().backward()  # as PyTorch: every src entry reads the gradient at its target
    assert src.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert x.grad.tolist() == [[0.0, 1.0], [1.0, 0.0]]
    y = ag.zeros(3).index_copy(0, ag.tensor([1, 1]), ag.tensor([5.0, 6.0]))
    assert y.tolist() == [0.0, 6.0, 0.0]
    assert ag.zeros(3).put(ag.tensor([2, -1]), ag.tensor([5.0, 6.0])).tolist() == [0.0, 0.0, 6.0]


def test_int32_index_is_accepted_as_pytorch():
    i = ag.tensor([[0, 2]], dtype=ag.int32)
    assert ag.zeros(3, 2).scatter(0, i, 1.0).tolist() == [[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]]


def test_integer_scatter_reduce():
    x = ag.tensor([10, 20, 30])
    out = x.scatter_reduce(0, ag.tensor([0, 0, 2]), ag.tensor([3, 4, 9]), "mean")
    assert out.tolist() == [5, 20, 19]
    assert x.scatter_reduce(0, ag.tensor([1, 1]), ag.tensor([-3, 4]), "amin").tolist() == [10, -3, 30]


@pytest.mark.parametrize("call, err, words", [
    (lambda x: x.scatter(0, ag.tensor([[3, 0, 0, 0]]), 1.0), RuntimeError, "out of bounds"),
    (lambda x: x.scatter(0, ag.tensor([[-1, 0, 0, 0]]), 1.0), RuntimeError, "out of bounds"),
    (lambda x: x.scatter(0, ag.tensor([[0.0, 0.0]]), 1.0), RuntimeError, "int64"),
    (lambda x: x.scatter_add(0, ag.tensor([0, 1]), ag.ones(2)), RuntimeError, "same number of dim"),
    (lambda x: x.scatter_add(0, ag.tensor([[0, 1, 0, 0, 0]]), ag.ones(1, 5)), RuntimeError,
     "smaller than self"),
    (lambda x: x.scatter_add(0, ag.tensor([[0, 1]]), ag.ones(1, 1)), RuntimeError, "smaller size than src"),
    (lambda x: x.scatter_reduce(0, ag.tensor([[0]]), ag.ones(1, 1), "max"), RuntimeError, "reduce"),
    (lambda x: x.scatter_add(0, ag.tensor([[0]]), ag.ones(1, 1, dtype=ag.float64)), RuntimeError, "dtype"),
    (lambda x: x.index_add(0, ag.tensor([3]), ag.ones(1, 4)), RuntimeError, "index_add"),
    (lambda x: x.index_add(0, ag.tensor([-1]), ag.ones(1, 4)), RuntimeError, "index_add"),
    (lambda x: x.index_copy(0, ag.tensor([-1]), ag.ones(1, 4)), IndexError, "index_copy"),
    (lambda x: x.index_fill(0, ag.tensor([3]), 1.0), IndexError, "index_fill"),
    (lambda x: x.index_copy(0, ag.tensor([0]), ag.ones(2, 4)), RuntimeError, "index_copy"),
    (lambda x: x.masked_fill(ag.tensor([1, 0, 1, 0]), 1.0), RuntimeError, "Bool"),
    (lambda x: x.masked_fill(ag.ones(2, 3, 4, dtype=ag.bool), 1.0), RuntimeError, "masked_fill"),
    (lambda x: x.masked_scatter(ag.ones(3, 4, dtype=ag.bool), ag.ones(2)), RuntimeError, "source"),
    (lambda x: x.take(ag.tensor([12])), IndexError, "take"),
    (lambda x: x.put(ag.tensor([0, 1]), ag.ones(3)), RuntimeError, "put"),
])
def test_bad_input_raises_and_changes_nothing(call, err, words):
    x = ag.zeros(3, 4)
    with pytest.raises(err, match=words):
        call(x)
    assert x.tolist() == [[0.0] * 4] * 3


@needs_torch
def test_error_classes_match_torch():
    t = torch.zeros(3, 4)
    with pytest.raises(RuntimeError):
        t.scatter(0, torch.tensor([[-1, 0, 0, 0]]), 1.0)
    with pytest.raises(RuntimeError):
        t.index_add(0, torch.tensor([-1]), torch.ones(1, 4))
    with pytest.raises(IndexError):
        t.index_copy(0, torch.tensor([-1]), torch.ones(1, 4))
    with pytest.raises(IndexError):
        t.index_fill(0, torch.tensor([3]), 1.0)
    with pytest.raises(IndexError):
        t.take(torch.tensor([12]))
