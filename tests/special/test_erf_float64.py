"""The NumPy backend's erf of float64 arrays (``arraygrad_special.erf_float64``): its accuracy
against mpmath, its edges, its blocks and its two ranges, and which arrays take it."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

pytest.importorskip("arraygrad_special", reason="arraygrad-special is not installed")
mpmath = pytest.importorskip("mpmath")

import arraygrad as ag  # noqa: E402
from arraygrad_special import blocks, kernels  # noqa: E402
from arraygrad_special.erf_float64 import erf_float64  # noqa: E402

MAX_ULP = 1.4  # measured 1.34 (250,000 points); SciPy's is within 2.6, PyTorch's within 1

_BLOCK = blocks.BLOCK_BYTES // 8


def _ulps(x: np.ndarray) -> np.ndarray:
    """erf_float64's error at each of ``x`` in ulps of the exact value (mpmath, 30 digits:
    the exact value is ``hi + lo``, two doubles, so the difference is taken exactly)."""
    mpmath.mp.dps = 30
    exact = [mpmath.erf(mpmath.mpf(float(v))) for v in x]
    hi = np.array([float(e) for e in exact])
    lo = np.array([float(e - mpmath.mpf(h)) for e, h in zip(exact, hi)])
    return np.abs((erf_float64(x) - hi) - lo) / np.spacing(np.abs(hi))


def test_within_one_and_four_tenths_ulp_against_mpmath():
    # both ranges, the split (0.875) and the clamp (6) densely, and the tails
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(0.0, 6.5, 6_000), rng.uniform(0.8, 1.6, 6_000),
                        rng.uniform(0.0, 0.875, 4_000), np.linspace(0.87, 0.88, 1_001),
                        np.linspace(5.8, 6.2, 401), np.geomspace(1e-300, 1e-3, 401)])
    err = _ulps(np.concatenate([x, -x]))
    assert err.max() <= MAX_ULP, float(err.max())
    assert err.mean() < 0.3  # most values round correctly: a fit, not a rough one


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, max_side=5),
                  elements=st.floats(-8, 8)))
def test_any_shape_any_value(x):
    out = erf_float64(x)
    assert out.shape == x.shape and out.dtype == np.float64
    assert (_ulps(x.reshape(-1)) <= MAX_ULP).all()


def test_edges():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -1e-310, 6.0, 50.0, -1e300,
                  0.875, -0.875])
    with np.errstate(all="raise"):  # no warning either: nothing overflows or divides by 0
        y = erf_float64(x)
    assert y[:4].tolist() == [0.0, 0.0, 1.0, -1.0]
    assert not np.signbit(y[0]) and np.signbit(y[1])  # erf(-0.0) is -0.0, as PyTorch's
    assert np.isnan(y[4])
    assert y[5] == 5e-324  # 2x/sqrt(pi) of the smallest subnormal rounds back to it
    assert abs(y[6] - -1e-310 * (2 / math.sqrt(math.pi))) <= 1e-323  # 2x/sqrt(pi), subnormal
    assert y[7:10].tolist() == [1.0, 1.0, -1.0]
    assert y[10] == -y[11] and abs(y[10] - math.erf(0.875)) <= 2.3e-16


@pytest.mark.parametrize("spread", [0.1, 2.5, 100.0])  # one range, both, almost all large
def test_blocks_and_ranges_do_not_change_a_value(spread):
    # a large array runs in cache-sized blocks, and the large range takes only its elements
    # of each: an element's erf is the one it gets alone, wherever the block edges fall
    rng = np.random.default_rng(5)
    x = rng.standard_normal(3 * _BLOCK + 1_234) * spread
    x[::4099] = np.nan
    whole = erf_float64(x)
    parts = np.concatenate([erf_float64(x[a:a + 1_000]) for a in range(0, x.size, 1_000)])
    assert np.array_equal(whole.view(np.uint64), parts.view(np.uint64))
    alone = np.array([erf_float64(x[i:i + 1])[0] for i in range(0, x.size, 997)])
    assert np.array_equal(whole[::997].view(np.uint64), alone.view(np.uint64))
    grid = x[:2 * _BLOCK].reshape(-1, 256)[:, ::2].T
    assert np.array_equal(erf_float64(grid), erf_float64(np.ascontiguousarray(grid)),
                          equal_nan=True)
    assert erf_float64(np.float64(0.5).reshape(())).shape == ()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_empty_arrays_and_the_kernel_is_kept(dtype, recwarn):
    # an empty array has no block: it raised, and the plugin registry dropped the erf kernel
    # for the rest of the process (every later erf then ran the portable code)
    from arraygrad_special.erf_float32 import erf_float32

    erf = erf_float64 if dtype == "float64" else erf_float32
    assert erf(np.zeros((0, 3), dtype)).shape == (0, 3)
    assert erf(np.zeros(0, dtype)).dtype == np.dtype(dtype)
    x = ag.zeros(0, 4, dtype=getattr(ag, dtype), requires_grad=True)
    ag.nn.functional.gelu(x).sum().backward()
    assert x.grad.shape == (0, 4)
    assert not [w for w in recwarn.list if "failed" in str(w.message)]
    from arraygrad.plugins import registry
    assert registry.get_kernel("erf", x._backend) is not None


def test_the_kernel_takes_every_float64_array():
    kernel = kernels.numpy_kernels()["erf"]
    for n in (1, 5, 4096):  # any size: an element's erf does not depend on its array's size
        x = np.linspace(-4, 4, n)
        assert np.array_equal(kernel(x), erf_float64(x))
        assert np.array_equal(kernel(x)[:1], kernel(x[:1]))
    assert np.array_equal(kernels.numpy_erf_first(None)(x), erf_float64(x))
