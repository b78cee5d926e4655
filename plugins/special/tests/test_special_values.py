"""The plugin's SciPy kernels against arraygrad's portable code (the kernel set aside), on
grids with the edges (0, -0, poles, +-inf, NaN, subnormals): the same values, so installing
the plugin changes the speed, not the numbers."""

import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.plugins import registry
from arraygrad_special import kernels

pytest.importorskip("scipy.special", reason="the kernels are SciPy's")

_EDGES = [0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 2.0, 1e-320, -1e-320, 1e300, -1e300, np.inf,
          -np.inf, np.nan]
_GRID = np.concatenate([np.linspace(-40.0, 40.0, 4001), np.logspace(-300, 300, 301), _EDGES])
_UNIT = np.concatenate([np.linspace(-1.2, 1.2, 2401), 1 - np.logspace(-16, -1, 50), _EDGES])


def _op(name):
    return getattr(ag.special, name, None) or getattr(ag, name)


def _both(name, *args):
    """(kernel path, portable path) of op ``name`` on float64 arrays ``args``."""
    tensors = [ag.tensor(a, dtype=ag.float64) for a in args]
    registry.load_ops()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        fast = _op(name)(*tensors).numpy()
        with pytest.MonkeyPatch.context() as mp:
            mp.delitem(registry._state.kernels, (name, "numpy"))
            slow = _op(name)(*tensors).numpy()
    return fast, slow


# relative tolerance per op: the portable code's accuracy against SciPy's (the Bessel J/Y
# phases lose ~1e-16 |x| at large x); near zeros of the function (lgamma's and digamma's below
# 0, where the reflection formula subtracts numbers of size ~1) the absolute ATOL applies
_RTOL = {"bessel_j0": 1e-12, "bessel_j1": 1e-12, "bessel_y0": 1e-12, "bessel_y1": 1e-12,
         "erfc": 2e-13, "ndtr": 2e-13, "log_ndtr": 1e-13, "erfcx": 1e-14}


ATOL = {"lgamma": 3e-14, "digamma": 1e-14}


@pytest.mark.parametrize("name", sorted(set(kernels.SCIPY_NAMES) - {"igamma", "igammac"}))
def test_kernel_and_portable_agree(name):
    grid = _UNIT if name in ("erfinv", "ndtri") else _GRID
    if name == "ndtri":
        grid = np.abs(grid)
    if name.startswith("bessel_"):  # SciPy rounds x - pi/4 (the phase) beyond; we do not
        grid = grid[~(np.abs(grid) > 1e4)]
    fast, slow = _both(name, grid)
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(slow), err_msg=name)
    np.testing.assert_array_equal(fast[np.isinf(slow)], slow[np.isinf(slow)], err_msg=name)
    finite = np.isfinite(slow)
    np.testing.assert_allclose(fast[finite], slow[finite], rtol=_RTOL.get(name, 5e-15),
                               atol=ATOL.get(name, 1e-15), err_msg=name)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_kernels_agree(name):
    rng = np.random.default_rng(0)
    a = np.concatenate([10 ** rng.uniform(-3, 3, 2000), [0.0, 0.0, 1.0, np.inf, 2.0, -1.0]])
    x = np.concatenate([a[:2000] * rng.uniform(0, 3, 2000), [0.0, 1.0, np.inf, 1.0, np.nan, 1]])
    fast, slow = _both(name, a, x)
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(slow))
    finite = np.isfinite(slow)
    np.testing.assert_allclose(fast[finite], slow[finite], rtol=2e-12, atol=1e-300)


def test_float32_kernels_keep_float32():
    x = ag.tensor([0.5, 1.5], dtype=ag.float32)
    for name in ("erf", "lgamma", "i0e", "bessel_y1", "ndtri"):
        assert _op(name)(x / 2).dtype is ag.float32, name
