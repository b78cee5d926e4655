"""Convolution, pooling, fold and padding run on the strict Array API reference backend and
give the NumPy backend's numbers (values, indices and gradients)."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.nn import functional as F

pytestmark = pytest.mark.skipif(
    "strict" not in {b.name for b in ag.backends.available() if b.available},
    reason="array-api-strict backend not installed")


def _pipeline(x, w3, wt, device):
    """Every function of the family once, chained; returns the outputs and the gradients."""
    x, w3, wt = (t.detach().to(device).requires_grad_(True) for t in (x, w3, wt))
    y = F.conv3d(x, w3, padding="same")
    y = F.pad(y, (1, 1, 1, 0, 0, 1), mode="circular")
    y = F.pad(y, (1, 2, 0, 1, 1, 1), mode="reflect")
    y = F.pad(y, (1, -1, 0, 0, 2, 0), mode="replicate")
    v, i = F.max_pool3d(y, 2, ceil_mode=True, return_indices=True)
    u = F.max_unpool3d(v, i, 2, output_size=y.shape[2:])
    a = F.avg_pool3d(u, 3, 1, 1, count_include_pad=False)
    b = F.adaptive_max_pool2d(a.flatten(1, 2), (3, 2))
    c = F.adaptive_avg_pool3d(a, (2, None, 3))
    d = F.conv_transpose1d(c.flatten(2), wt, stride=2, output_padding=1)
    e = F.lp_pool1d(d.abs() + 0.5, 2.0, 3, ceil_mode=True)
    f = F.fold(F.unfold(a.flatten(1, 2), 2, padding=1), a.shape[3:], 2, padding=1)
    loss = b.sum() + (e * e).sum() + f.pow(2).sum()
    loss.backward()
    outs = [t.detach().to("cpu").numpy() for t in (i, v, b, c, d, e, f)]
    return outs + [t.grad.to("cpu").numpy() for t in (x, w3, wt)]


def test_family_on_strict_matches_numpy():
    ag.manual_seed(0)
    x = ag.randn(2, 2, 3, 4, 3, dtype=ag.float64)
    w3, wt = ag.randn(2, 2, 2, 3, 2, dtype=ag.float64), ag.randn(2, 3, 2, dtype=ag.float64)
    for ours, ref in zip(_pipeline(x, w3, wt, "strict"), _pipeline(x, w3, wt, "cpu")):
        np.testing.assert_allclose(ours, ref, rtol=1e-12, atol=1e-12)


def test_integer_pooling_on_strict():
    x = ag.arange(-12, 12).reshape(1, 2, 3, 4)
    for fn in (lambda t: F.max_pool2d(t, 2, padding=1), lambda t: F.avg_pool2d(t, 2, 1, 1)):
        np.testing.assert_array_equal(fn(x.to("strict")).to("cpu").numpy(), fn(x).numpy())
