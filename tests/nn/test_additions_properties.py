"""Property tests of the issue-23 additions over varying shapes: ``pdist`` is ``cdist``'s upper
triangle, fractional max pooling gives maxima of windows of its own input, ``pdist`` and the
flat-weight GRU match their module counterparts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad import nn

F = nn.functional


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 6), m=st.integers(1, 4), p=st.sampled_from([0.5, 1.0, 2.0, 3.0]),
       seed=st.integers(0, 2 ** 16))
def test_pdist_is_the_upper_triangle_of_cdist(n, m, p, seed):
    ag.manual_seed(seed)
    x = ag.randn(n, m, dtype=ag.float64)
    rows, cols = np.triu_indices(n, 1)
    full = ag.cdist(x, x, p, compute_mode="donot_use_mm_for_euclid_dist").numpy()
    np.testing.assert_allclose(F.pdist(x, p).numpy(), full[rows, cols], atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(h=st.integers(4, 10), w=st.integers(4, 10), k=st.integers(1, 3),
       seed=st.integers(0, 2 ** 16))
def test_fractional_max_pool_outputs_are_window_maxima(h, w, k, seed):
    ag.manual_seed(seed)
    x = ag.randn(2, 3, h, w, dtype=ag.float64)
    out_h, out_w = h - k + 1 - (h - k) // 2, w - k + 1 - (w - k) // 2
    out, idx = F.fractional_max_pool2d(x, k, output_size=(out_h, out_w), return_indices=True)
    flat = x.reshape(2, 3, -1)
    assert ag.equal(flat.gather(2, idx.reshape(2, 3, -1)).reshape(out.shape), out)
    rows, cols = idx // w, idx % w
    assert bool((rows[..., 1:, :] >= rows[..., :-1, :]).all())  # offsets increase
    assert bool((cols[..., :, 1:] >= cols[..., :, :-1]).all())


@settings(max_examples=15, deadline=None)
@given(t=st.integers(1, 4), b=st.integers(1, 3), layers=st.integers(1, 2),
       bidirectional=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_flat_weight_gru_is_the_module(t, b, layers, bidirectional, seed):
    ag.manual_seed(seed)
    net = nn.GRU(3, 4, num_layers=layers, bidirectional=bidirectional).double()
    x = ag.randn(t, b, 3, dtype=ag.float64)
    d = 2 if bidirectional else 1
    h0 = ag.randn(layers * d, b, 4, dtype=ag.float64)
    expected, h_n = net(x, h0)
    params = [p for layer in net.all_weights for p in layer]
    got, got_h = ag.gru(x, h0, params, True, layers, 0.0, False, bidirectional, False)
    assert ag.allclose(got, expected) and ag.allclose(got_h, h_n)
