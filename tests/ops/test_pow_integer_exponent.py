"""``x ** n`` for an integer number ``n`` of a float32/float64 tensor: computed as an integer
power of ``|x|`` with the sign put back for odd ``n`` (NumPy's vector ``pow`` serves only
non-negative bases). Values within one ulp of the library's ``pow`` and of PyTorch's, signed
zeros, infinities, NaN and overflow exactly as ``pow``'s, gradients as before."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

EXPONENTS = [-7, -4, -3, 4, 5, 6, 7, 10, 31, 4.0, -5.0, 8.0]
SPECIAL = [0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 1e-300, -1e-300, 1e300, -1e300,
           5e-324, -5e-324, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0]


def _ulps(a, b):
    """The distance in ulps of two finite float arrays of one dtype (0 where both are the same
    special value)."""
    ints = np.int64 if a.dtype == np.float64 else np.int32
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    ia, ib = a.view(ints).astype(np.int64), b.view(ints).astype(np.int64)
    # map the sign-magnitude order to a monotone integer line
    ia = np.where(ia < 0, np.iinfo(ints).min - ia, ia)
    ib = np.where(ib < 0, np.iinfo(ints).min - ib, ib)
    return np.where(same, 0, np.abs(ia - ib))


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), exponent=st.sampled_from(EXPONENTS),
       data=st.data())
def test_within_one_ulp_of_the_librarys_pow(dtype, exponent, data):
    x = data.draw(hnp.arrays(dtype, hnp.array_shapes(max_dims=3, max_side=6),
                             elements=st.floats(-40, 40, width=32 if dtype == np.float32 else 64)))
    got = (ag.tensor(x) ** exponent).numpy()
    with np.errstate(all="ignore"):
        want = np.power(x, dtype(exponent))
    assert got.dtype == dtype and got.shape == x.shape
    assert np.array_equal(np.isnan(got), np.isnan(want))
    assert np.array_equal(np.signbit(got), np.signbit(want))
    assert _ulps(got, want).max(initial=0) <= 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("exponent", EXPONENTS + [2 ** 40, 1e300, -1e300])
def test_special_values_are_pows_exactly(dtype, exponent):
    x = np.array(SPECIAL, dtype=dtype)
    got = (ag.tensor(x) ** exponent).numpy()
    with np.errstate(all="ignore"):
        want = np.power(x.astype(np.float64), float(exponent)).astype(dtype)
    special = ~np.isfinite(want) | (want == 0) | (np.abs(x) == 1)
    assert np.array_equal(got[special], want[special], equal_nan=True)
    assert np.array_equal(np.signbit(got[special]), np.signbit(want[special]))


def test_other_exponents_keep_their_paths():
    x = np.array([-2.0, -0.5, 0.0, 1.5, 3.0])
    with np.errstate(all="ignore"):
        for e in (0, 1, 2, -1, 2.5, 0.5, 1.5):
            np.testing.assert_array_equal((ag.tensor(x) ** e).numpy(), x ** float(e))
    ints = ag.tensor([-3, 2, 5])
    assert (ints ** 4).tolist() == [81, 16, 625]  # integer tensors: integer pow
    assert (ag.tensor(x, dtype=ag.float16) ** 4).dtype == ag.float16


def test_gradient_of_an_odd_power_of_negative_values():
    x = ag.tensor([-2.0, -0.5, 0.0, 1.5], dtype=ag.float64, requires_grad=True)
    (x ** 5).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 5 * np.array([-2.0, -0.5, 0.0, 1.5]) ** 4,
                               rtol=1e-15)
    assert ag.autograd.gradcheck(lambda t: t ** 7, (x,))


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_within_one_ulp_of_pytorch(dtype):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(5000) * 3).astype(dtype)
    for e in (4, 5, 6, 7, -3, -4, 9):
        ours = ag.tensor(x, requires_grad=True)
        theirs = torch.tensor(x, requires_grad=True)
        (ours ** e).sum().backward()
        (theirs ** e).sum().backward()
        got, want = (ours ** e).detach().numpy(), (theirs ** e).detach().numpy()
        finite = np.isfinite(want)
        assert _ulps(got[finite], want[finite]).max() <= 1
        assert math.isclose(float(np.abs(ours.grad.numpy() - theirs.grad.numpy()).max()
                                  / max(1.0, float(np.abs(theirs.grad.numpy()).max()))), 0.0,
                            abs_tol=1e-5 if dtype == "float32" else 1e-13)
