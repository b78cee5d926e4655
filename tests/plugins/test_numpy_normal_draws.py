"""The NumPy backend's float32 normal draws: NumPy's ziggurat below ``BOX_MULLER_MIN``
values (every small draw keeps its stream), the Box-Muller transform of float32 uniforms from
there on (``_box_muller_float32``: PyTorch's CPU method, faster than NumPy's float32
ziggurat). The large draws are checked as a distribution: moments, the empirical CDF against
the normal one, each block's cosines and sines (of one angle and radius) uncorrelated."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag
from arraygrad_numpy.backend import _BOX_MULLER_BLOCK, BOX_MULLER_MIN, _box_muller_float32


def _cdf_gap(x: np.ndarray) -> float:
    """The largest gap between ``x``'s empirical CDF and the standard normal's, on a grid."""
    ordered = np.sort(x.astype(np.float64))
    grid = np.linspace(-4.0, 4.0, 65)
    empirical = np.searchsorted(ordered, grid, side="right") / ordered.size
    exact = np.array([0.5 * (1.0 + math.erf(v / math.sqrt(2.0))) for v in grid])
    return float(np.abs(empirical - exact).max())


@pytest.mark.parametrize("shape", [(BOX_MULLER_MIN,), (3, 349_525), (BOX_MULLER_MIN + 1,)])
def test_large_draws_are_standard_normal(shape):
    x = _box_muller_float32(np.random.default_rng(7), shape)
    n = math.prod(shape)
    assert x.shape == shape and x.dtype == np.float32 and np.isfinite(x).all()
    flat = x.reshape(-1).astype(np.float64)
    assert abs(flat.mean()) < 5 / math.sqrt(n)
    assert abs(flat.var() - 1.0) < 5 * math.sqrt(2.0 / n)
    assert _cdf_gap(flat) < 1.63 / math.sqrt(n) * 1.5  # (KS: 1% level, with room)
    # each block's cosines and sines (one angle and radius each): uncorrelated
    whole = n // (2 * _BOX_MULLER_BLOCK) * 2 * _BOX_MULLER_BLOCK
    pairs = flat[:whole].reshape(-1, 2, _BOX_MULLER_BLOCK)
    cosines, sines = pairs[:, 0].reshape(-1), pairs[:, 1].reshape(-1)
    assert abs(np.corrcoef(cosines, sines)[0, 1]) < 5 / math.sqrt(cosines.size)
    assert abs(np.corrcoef(cosines ** 2, sines ** 2)[0, 1]) < 5 / math.sqrt(cosines.size)
    assert np.abs(flat).max() <= math.sqrt(-2.0 * math.log(2.0 ** -24)) + 1e-3


def test_randn_takes_each_method_by_size_and_is_reproducible():
    if ag.get_default_device().type != "cpu":
        pytest.skip("the NumPy backend's generator")
    ag.manual_seed(3)
    small = ag.randn(1000).numpy()
    large = ag.randn(BOX_MULLER_MIN).numpy()
    ag.manual_seed(3)
    assert np.array_equal(ag.randn(1000).numpy(), small)
    assert np.array_equal(ag.randn(BOX_MULLER_MIN).numpy(), large)
    # a small draw is NumPy's ziggurat, as before: the generator's own stream
    gen = ag.Generator().manual_seed(11)
    want = np.random.default_rng(11).standard_normal(1000, dtype=np.float32)
    assert np.array_equal(ag.randn(1000, generator=gen).numpy(), want)
    assert _cdf_gap(large) < 1.63 / math.sqrt(large.size) * 1.5
    assert ag.randn(BOX_MULLER_MIN, dtype=ag.float64).dtype == ag.float64  # (the ziggurat)
