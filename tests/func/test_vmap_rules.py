"""The batching rules at the array level: each function called through a batching namespace
on batched arrays (and unbatched ones mixed in) equals the function one level down applied to
each sample, stacked. Covers the rule paths the conformance cases reach rarely (``axis=None``,
batched index arrays, keys with separated index arrays, ``scatter_add``, ``searchsorted``)."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.func._vmap import BatchingBackend
from arraygrad.func._vmap._batched import BatchedArray

B = 3
REAL = ag.tensor(0.0)._backend
rng = np.random.default_rng(0)


def level():
    return BatchingBackend(REAL, B, "error")


def f(*shape):
    return rng.standard_normal((B,) + shape)


def i(high, *shape):
    return rng.integers(0, high, (B,) + shape)


class U:
    """An unbatched argument (the same for every sample)."""

    def __init__(self, value):
        self.value = value


# (function name, arguments: batched values have the batch in front, U(...) are unbatched;
#  keyword arguments)
CASES = [
    ("sum", (f(2, 3),), {"axis": None}), ("sum", (f(2, 3),), {"axis": (0, -1), "keepdims": True}),
    ("max", (f(2, 3),), {"axis": 1}), ("mean", (f(4),), {}), ("std", (f(2, 3),), {"axis": 0}),
    ("argmax", (f(2, 3),), {}), ("argmin", (f(2, 3),), {"axis": -1, "keepdims": True}),
    ("argmax", (f(2, 3),), {"axis": None, "keepdims": True}),
    ("cumulative_sum", (f(4),), {}), ("cumulative_sum", (f(2, 3),), {"axis": 0}),
    ("sort", (f(2, 3),), {"axis": 0}), ("argsort", (f(5),), {"descending": True}),
    ("any", (f(2, 3) > 0,), {"axis": 1}), ("all", (f(2, 3) > 0,), {}),
    ("add", (f(2, 3), U(rng.standard_normal(3))), {}), ("multiply", (f(3), f(2, 3)), {}),
    ("where", (f(2, 3) > 0, f(3), U(rng.standard_normal((2, 1)))), {}),
    ("clip", (f(2, 3),), {"min": U(np.zeros(3)), "max": 0.5}),
    ("reshape", (f(2, 3), (3, -1)), {}), ("permute_dims", (f(2, 3, 4), (2, 0, 1)), {}),
    ("expand_dims", (f(2, 3),), {"axis": -1}), ("squeeze", (f(1, 3, 1),), {"axis": (0, 2)}),
    ("broadcast_to", (f(3), (2, 3)), {}), ("flip", (f(2, 3),), {}), ("flip", (f(2, 3),), {"axis": 1}),
    ("roll", (f(2, 3), 2), {}), ("roll", (f(2, 3), -1), {"axis": 0}),
    ("moveaxis", (f(2, 3, 4), 0, -1), {}), ("tile", (f(2, 3), (2, 1, 2)), {}),
    ("concat", ([f(2, 3), U(rng.standard_normal((1, 3)))],), {"axis": 0}),
    ("concat", ([f(2, 3), f(4)],), {"axis": None}),
    ("stack", ([f(3), U(rng.standard_normal(3))],), {"axis": -1}),
    ("diff", (f(2, 4),), {"axis": -1, "prepend": U(np.zeros((2, 1)))}),
    ("matmul", (f(3), f(3)), {}), ("matmul", (f(3), U(rng.standard_normal(3))), {}),
    ("matmul", (U(rng.standard_normal(3)), f(3, 2)), {}), ("matmul", (f(2, 3), f(3)), {}),
    ("matmul", (f(4, 2, 3), U(rng.standard_normal((3, 5)))), {}),
    ("matmul", (f(2, 3), U(rng.standard_normal((4, 3, 2)))), {}),
    ("vecdot", (f(2, 3), U(rng.standard_normal(3))), {}),
    ("linalg.cross", (f(2, 3), U(rng.standard_normal(3))), {}), ("linalg.cross", (f(3), f(3)), {}),
    ("tensordot", (f(2, 3), f(3, 4)), {"axes": 1}),
    ("take", (f(5), U(np.array([0, 4, 4]))), {}), ("take", (f(2, 5), i(5, 3)), {"axis": 1}),
    ("take", (U(rng.standard_normal((4, 2))), i(4, 3)), {"axis": 0}),
    ("take_along_axis", (f(2, 5), i(5, 2, 3)), {"axis": 1}),
    ("searchsorted", (U(np.sort(rng.standard_normal(6))), f(4)), {}),
    ("linalg.inv", (f(3, 3) + 3 * np.eye(3),), {}), ("linalg.det", (f(2, 2),), {}),
    ("linalg.solve", (f(3, 3) + 3 * np.eye(3), f(3)), {}),
    ("linalg.solve", (U(rng.standard_normal((3, 3)) + 3 * np.eye(3)), f(3, 2)), {}),
    ("linalg.vector_norm", (f(2, 3),), {"axis": 1, "ord": 1}),
    ("linalg.vector_norm", (f(2, 3),), {}), ("linalg.outer", (f(2), U(rng.standard_normal(3))), {}),
    ("zeros_like", (f(2, 3),), {}), ("astype", (f(3), np.float32), {}),
    ("full_like", (f(2),), {"fill_value": 2.0}),
]


def _resolve(ns, name):
    for part in name.split("."):
        ns = getattr(ns, part)
    return ns


def _batched(value, lvl):
    if isinstance(value, U):
        return value.value
    if isinstance(value, list):
        return [_batched(v, lvl) for v in value]
    if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == B and value.dtype != object:
        return BatchedArray(value, lvl)
    return value


def _sample(value, k):
    if isinstance(value, U):
        return value.value
    if isinstance(value, list):
        return [_sample(v, k) for v in value]
    if isinstance(value, np.ndarray) and value.ndim and value.shape[0] == B:
        return value[k]
    return value


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}-{n}" for n, c in enumerate(CASES)])
def test_rule_matches_each_sample(name, args, kwargs):
    backend = level()
    lvl = backend.level
    got = _resolve(backend.xp, name)(*[_batched(a, lvl) for a in args],
                                     **{k: _batched(v, lvl) for k, v in kwargs.items()})
    want = np.stack([np.asarray(_resolve(REAL.xp, name)(*[_sample(a, k) for a in args],
                                                        **{n: _sample(v, k) for n, v in kwargs.items()}))
                     for k in range(B)])
    assert type(got) is BatchedArray and got.level is lvl
    assert got.value.shape == want.shape and got.value.dtype == want.dtype
    np.testing.assert_allclose(got.value, want, rtol=1e-12, atol=1e-12)


KEYS = [
    (slice(1, None), 0), (Ellipsis, None, 1), (U(np.array([2, 0])),), (0, U(np.array([1, 1, 0]))),
    (U(np.array([0, 1])), slice(None), U(np.array([2, 0]))),  # separated index arrays
    (i(3, 2),), (i(3, 2), U(np.array([0, 3]))), (1, i(4, 2, 2)),
]


@pytest.mark.parametrize("key", KEYS, ids=[str(n) for n in range(len(KEYS))])
def test_getitem_setitem_scatter_add(key):
    backend = level()
    lvl = backend.level
    x = f(3, 4, 3)
    bkey = tuple(_batched(k, lvl) for k in key)
    got = BatchedArray(x.copy(), lvl)[bkey]
    want = np.stack([x[k][tuple(_sample(p, k) for p in key)] for k in range(B)])
    assert got.value.shape == want.shape
    np.testing.assert_array_equal(got.value, want)
    # writing batched values through the same key, and accumulating them
    values = np.arange(want.size, dtype=float).reshape(want.shape)
    target = BatchedArray(x.copy(), lvl)
    target[bkey] = BatchedArray(values, lvl)
    acc = BatchedArray(np.zeros_like(x), lvl)
    backend.scatter_add(acc, bkey, BatchedArray(values, lvl))
    for k in range(B):
        expect = x[k].copy()
        expect[tuple(_sample(p, k) for p in key)] = values[k]
        np.testing.assert_array_equal(target.value[k], expect)
        summed = np.zeros_like(x[k])
        np.add.at(summed, tuple(_sample(p, k) for p in key), values[k])
        np.testing.assert_array_equal(acc.value[k], summed)


def test_unbatched_calls_go_straight_down():
    backend = level()
    assert backend.xp.sum(np.ones(3)) == 3  # no batched argument: the function below, as is
    assert backend.xp.float64 is REAL.xp.float64


def test_nonzero_refuses_and_checks_read_the_whole_batch():
    backend = level()
    lvl = backend.level
    x = BatchedArray(np.array([[0, 1], [2, 3], [4, 9]]), lvl)
    with pytest.raises(RuntimeError, match="dynamic shape"):
        backend.xp.nonzero(x)
    assert int(backend.xp.max(x)) == 9 and int(backend.xp.min(x)) == 0
    assert bool(backend.xp.any(x > 8)) and not bool(backend.xp.all(x > 0))
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        bool(backend.xp.sum(x) > 5)  # True for some samples only
    with pytest.raises(RuntimeError, match=r"\.item\(\)"):
        float(x[0])
    assert bool(backend.xp.sum(x) >= 1) and int(x[0] * 0 + 7) == 7  # every sample agrees
