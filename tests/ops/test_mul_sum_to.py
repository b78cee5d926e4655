"""The contraction path of a broadcasting product's gradient equals the direct sum_to(g * b)."""

import numpy as np
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops.broadcast import mul_sum_to, sum_to

# per dimension: its size, and whether a and b each have it or broadcast it (size 1)
dim_specs = st.lists(st.tuples(st.sampled_from([5, 7]), st.booleans(), st.booleans()),
                     min_size=1, max_size=4)


@settings(max_examples=80, deadline=None)
@given(dim_specs, st.booleans())
def test_contraction_matches_direct_product(specs, expand_g):
    nd = len(specs)
    a_shape = tuple(n if in_a else 1 for n, in_a, _ in specs)
    b_shape = tuple(n if in_b else 1 for n, _, in_b in specs)
    a_dims = a_shape
    full = tuple(max(x, y) for x, y in zip(a_shape, b_shape))
    ag.manual_seed(0)
    b = ag.randn(*b_shape, dtype=ag.float64)
    if expand_g:  # as after a reduction's backward: an expanded, stride-0 gradient
        compact = tuple(1 if i == nd - 1 else n for i, n in enumerate(full))
        g = ag.randn(*compact, dtype=ag.float64).expand(*full)
    else:
        g = ag.randn(*full, dtype=ag.float64)
    got = mul_sum_to(g, b, tuple(a_dims))
    want = sum_to(g * b, tuple(a_dims))
    assert tuple(got.shape) == tuple(a_dims)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)


def test_broadcast_reduce_gradients_and_double_backward():
    x = ag.randn(6, 5, dtype=ag.float64, requires_grad=True)
    y = ag.randn(7, 5, dtype=ag.float64, requires_grad=True)
    f = lambda a, b: (a[:, None, :] * b[None, :, :]).sum(-1).mean()  # noqa: E731
    assert ag.autograd.gradcheck(f, (x, y))
    assert ag.autograd.gradgradcheck(f, (x, y))


@settings(max_examples=40, deadline=None)
@given(dim_specs)
def test_gradient_expanded_from_a_scalar(specs):
    # as after mean()'s backward: every dimension of g is a broadcast (stride 0)
    a_shape = tuple(n if in_a else 1 for n, in_a, _ in specs)
    b_shape = tuple(n if in_b else 1 for n, _, in_b in specs)
    full = tuple(max(x, y) for x, y in zip(a_shape, b_shape))
    g = ag.tensor(0.25, dtype=ag.float64).expand(*full)
    b = ag.randn(*b_shape, dtype=ag.float64)
    got = mul_sum_to(g, b, a_shape)
    want = sum_to(g * b, a_shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-10)
