"""``clip_grad_norm_`` on the arrays (``fast_optim.grad_norms_data``/``scale_in_place``): the
total norm, the scaled gradients and their versions are the Tensor ops' bit for bit; tensors
the arrays cannot take (another dtype, a read-only array, an inference tensor) keep the Tensor
op or its refusal."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops.rule import reference_mode


def _clip(shapes, dtype, max_norm, norm_type, seed):
    rng = np.random.default_rng(seed)
    ps = [ag.nn.Parameter(ag.tensor(rng.standard_normal(s), dtype=dtype)) for s in shapes]
    for p in ps:
        p.grad = ag.tensor(rng.standard_normal(p.shape) * 3, dtype=dtype)
    total = ag.nn.utils.clip_grad_norm_(ps, max_norm, norm_type=norm_type)
    return total.item(), [p.grad.numpy() for p in ps], [p.grad._version for p in ps]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([(), (3,), (4, 5), (2, 3, 2)]), min_size=1, max_size=5),
       st.sampled_from(["float32", "float64"]), st.sampled_from([0.1, 1.0, 100.0]),
       st.sampled_from([2.0, 1.0, math.inf]), st.integers(0, 1000))
def test_the_tensor_ops_bit_for_bit(shapes, dtype, max_norm, norm_type, seed):
    got = _clip(shapes, getattr(ag, dtype), max_norm, norm_type, seed)
    with reference_mode():
        want = _clip(shapes, getattr(ag, dtype), max_norm, norm_type, seed)
    assert got[0] == want[0] and got[2] == want[2]
    for g, w in zip(got[1], want[1]):
        assert np.array_equal(g, w)


def test_mixed_dtypes_and_read_only_gradients_take_the_tensor_op():
    a = ag.nn.Parameter(ag.ones(3))
    b = ag.nn.Parameter(ag.ones(2, dtype=ag.float64))
    a.grad, b.grad = ag.full((3,), 4.0), ag.full((2,), 3.0, dtype=ag.float64)
    total = ag.nn.utils.clip_grad_norm_([a, b], 1.0)
    assert total.item() == pytest.approx(math.sqrt(48 + 18))
    assert a.grad.tolist() == pytest.approx([4 / total.item()] * 3, rel=1e-5)
    c = ag.nn.Parameter(ag.ones(2))
    c.grad = ag.from_numpy(np.full(2, 10.0, dtype=np.float32))
    c.grad.numpy().flags.writeable = False
    with pytest.raises((ValueError, RuntimeError)):
        ag.nn.utils.clip_grad_norm_([c], 1.0)  # as the Tensor op refuses a read-only array


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3)
    grads = [rng.standard_normal(s).astype(np.float32) for s in ((4, 3), (3,), ())]
    for lib in (ag, torch):
        ps = [lib.nn.Parameter(lib.zeros(g.shape)) for g in grads]
        for p, g in zip(ps, grads):
            p.grad = lib.tensor(g)
        total = lib.nn.utils.clip_grad_norm_(ps, 0.5)
        if lib is ag:
            got = (total.item(), [p.grad.numpy().copy() for p in ps])
        else:
            want = (total.item(), [p.grad.numpy() for p in ps])
    assert got[0] == pytest.approx(want[0], rel=1e-6)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_an_empty_gradient_under_the_inf_norm_is_refused_on_either_path():
    for ctx in (lambda: ag.no_grad(), reference_mode):
        p, q = ag.nn.Parameter(ag.ones(0)), ag.nn.Parameter(ag.ones(2))
        p.grad, q.grad = ag.ones(0), ag.ones(2)
        with ctx(), pytest.raises(RuntimeError, match="non-empty"):
            ag.nn.utils.clip_grad_norm_([p, q], 1.0, norm_type=math.inf)
        assert q.grad.tolist() == [1.0, 1.0]
