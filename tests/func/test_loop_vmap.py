"""``func._vmap_loop.loop_vmap``, the loop-and-stack oracle for the batched ``vmap`` (the
tests of jacrev/jacfwd compare with it; ``benchmarks/per_sample_grads.py`` times it as the
Python loop): in_dims/out_dims as ints, None and pytree prefixes, kwargs, randomness modes,
chunk_size, and ``torch.func.vmap``'s errors."""

import numpy as np
import pytest
from func_helpers import arr, needs_torch, t64, torch, torch64

import arraygrad as ag
from arraygrad.func._vmap_loop import loop_vmap

A = np.arange(12.0).reshape(3, 4) / 7


def test_in_dims_out_dims_and_pytree_prefixes():
    x = t64(A)
    np.testing.assert_allclose(arr(loop_vmap(lambda r: r.sum())(x)), A.sum(1))
    got = loop_vmap(lambda c, s: c * s, in_dims=(1, None), out_dims=1)(x, t64(2.0))
    np.testing.assert_allclose(arr(got), 2 * A)
    got = loop_vmap(lambda d, k: d["a"] * d["b"][0] + k, in_dims=({"a": 0, "b": [None]}, None))(
        {"a": x, "b": [t64([1.0, 2.0, 3.0, 4.0])]}, 1.0)
    np.testing.assert_allclose(arr(got), A * [1.0, 2.0, 3.0, 4.0] + 1)
    out = loop_vmap(lambda r, scale=1.0: {"y": (r * scale, r.sum())}, in_dims=-2,
                    out_dims={"y": (0, None)})(x, scale=3.0)
    np.testing.assert_allclose(arr(out["y"][0]), 3 * A)
    assert tuple(out["y"][1].shape) == ()  # out_dim None: one sample's (unbatched) value


def test_randomness_modes_and_chunk_size():
    x = t64(A)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        loop_vmap(lambda r: r + ag.randn(4, dtype=ag.float64))(x)
    same = loop_vmap(lambda r: ag.randn(4, dtype=ag.float64), randomness="same")(x)
    assert all(ag.equal(same[0], same[i]) for i in range(3))
    diff = loop_vmap(lambda r: ag.randn(4, dtype=ag.float64), randomness="different")(x)
    assert not ag.equal(diff[0], diff[1])
    for chunk in (1, 2, 5):
        np.testing.assert_allclose(arr(loop_vmap(ag.sin, chunk_size=chunk)(x)), np.sin(A))
    with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
        loop_vmap(ag.sin, chunk_size=0)
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        loop_vmap(ag.sin, randomness="sometimes")


@pytest.mark.parametrize("call, message", [
    (lambda: loop_vmap(ag.sin, in_dims=[0])(t64(A)), "expected `in_dims` to be int or"),
    (lambda: loop_vmap(ag.sin)(), "got no inputs"),
    (lambda: loop_vmap(lambda a, b: a, in_dims=(0,))(t64(A), t64(A)), "not compatible"),
    (lambda: loop_vmap(lambda a: a, in_dims=0)(3.0), "We cannot vmap over non-Tensor"),
    (lambda: loop_vmap(ag.sin, in_dims=2)(t64(A)), "expected in_dim to satisfy"),
    (lambda: loop_vmap(ag.add)(t64(A), t64(A[:2])), "same size in the mapped dimension"),
    (lambda: loop_vmap(ag.sin, in_dims=None)(t64(A)), "at least one Tensor to vmap over"),
    (lambda: loop_vmap(lambda a: 3)(t64(A)), "must only return Tensors"),
    (lambda: loop_vmap(lambda a: (a, a), out_dims=(0, 0, 0))(t64(A)), "out_dims is not"),
])
def test_errors_as_pytorch(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@needs_torch
def test_matches_torch_vmap():
    def f(m, a, b):
        return (a * b).sum(-1), m.stack([a, b]).amax(0)

    ours = loop_vmap(lambda a, b: f(ag, a, b), in_dims=(1, None), out_dims=(0, 1))(
        t64(A.T), t64(A[0]))
    theirs = torch.func.vmap(lambda a, b: f(torch, a, b), in_dims=(1, None), out_dims=(0, 1))(
        torch64(A.T), torch64(A[0]))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(arr(a), arr(b))
