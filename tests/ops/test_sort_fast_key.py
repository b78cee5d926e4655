"""``sort``/``topk`` read their values with one ``take_along_axis`` (``fast.along_key_on``, the
flat positions made only for a backward): values, indices and gradients are the general
key's, in every dimension, with repeated values and ``stable``."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import arraygrad as ag
from arraygrad.ops.rule import reference_mode


def _run(a, op, dim, k, descending):
    x = ag.tensor(a, requires_grad=True)
    if op == "sort":
        values, indices = ag.sort(x, dim=dim, descending=descending, stable=True)
    else:
        values, indices = ag.topk(x, min(k, a.shape[dim]), dim=dim, largest=descending)
    weights = ag.tensor(np.arange(values.numel(), dtype=np.float64).reshape(values.shape))
    (values * weights).sum().backward()
    return values.detach().numpy(), indices.numpy(), x.grad.numpy()


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, max_side=5),
                  elements=st.sampled_from([0.0, 1.0, -2.5, 3.0, 0.5])),
       st.sampled_from(["sort", "topk"]), st.integers(-3, 2), st.integers(1, 4), st.booleans())
def test_the_general_keys_values_indices_and_gradients(a, op, dim, k, descending):
    dim = dim % a.ndim
    got = _run(a, op, dim, k, descending)
    with reference_mode():
        want = _run(a, op, dim, k, descending)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w)
