"""``cov``, ``corrcoef``, ``histogram``, ``histogramdd`` (and the existing ``histc``,
``bincount``), ``isin``, ``gradient``, ``trapezoid``/``trapz``/``cumulative_trapezoid``:
values and dtypes against PyTorch, gradients (gradcheck in float64), errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64
Y = [[1., 2, 4, 8], [10, 20, 40, 80]]
RNG = np.random.default_rng(0)
POINTS = RNG.standard_normal(1000).astype(np.float32).tolist()
POINTS_3D = RNG.standard_normal((500, 3)).tolist()


def _compare(ours, theirs):
    if isinstance(theirs, (tuple, list)):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            _compare(o, t)
        return
    o, t = ours.numpy(), theirs.numpy()
    assert o.shape == t.shape and o.dtype == t.dtype, (o, t)
    np.testing.assert_allclose(o, t, rtol=1e-5, atol=1e-6, equal_nan=True)


CASES = {
    "histogram_one_value": lambda m: m.histogram(m.tensor([1., 1., 1.]), 2),
    "histogram_empty": lambda m: m.histogram(m.tensor([]), 2),
    "histogram_edges": lambda m: m.histogram(m.tensor([0., 1, 2, 3, 10]), m.tensor([0., 2, 4])),
    "histogram_weight_density": lambda m: m.histogram(
        m.tensor([1., 2, 1]), bins=4, range=(0., 3.), weight=m.tensor([1., 2, 4]), density=True),
    "histogram_float64": lambda m: m.histogram(m.tensor([1., 2, 3], dtype=m.float64), 3),
    "histogram_many": lambda m: m.histogram(m.tensor(POINTS), 37),
    "histogram_method": lambda m: m.tensor(POINTS).histogram(5, range=(-1., 1.)),
    "histogramdd_counts": lambda m: m.histogramdd(m.tensor([[0., 1, 2, 3], [4, 5, 6, 7.]]).t(), [2, 3]),
    "histogramdd_range_density": lambda m: m.histogramdd(
        m.tensor([[0., 1, 2, 3], [4, 5, 6, 7.]]).t(), [2, 2], range=[0., 4., 4., 8.], density=True),
    "histogramdd_edges_weight": lambda m: m.histogramdd(
        m.tensor([[0., 1, 2, 3], [4, 5, 6, 7.]]).t(), [m.tensor([0., 2, 3]), m.tensor([4., 8])],
        weight=m.tensor([1., 2, 3, 4])),
    "histogramdd_many": lambda m: m.histogramdd(m.tensor(POINTS_3D), [3, 4, 5]),
    "histc_range": lambda m: m.histc(m.tensor([1., 2, 1, 7, 3.5]), bins=4, min=0, max=3),
    "histc_data_range": lambda m: m.histc(m.tensor([1., 2, 1, 7, 3.5]), bins=5),
    "bincount": lambda m: m.bincount(m.tensor([1, 3, 3, 0])),
    "bincount_weights": lambda m: m.bincount(m.tensor([1, 3, 3, 0]), m.tensor([.5, 1., 2., 3.]),
                                             minlength=6),
    "bincount_int_weights": lambda m: m.bincount(m.tensor([1, 2]), m.tensor([1, 2])),
    "cov_weights": lambda m: m.cov(m.tensor([[1., 2, 4], [1, 0, 3]]), correction=0,
                                   fweights=m.tensor([1, 2, 1]), aweights=m.tensor([.5, 1., 2.])),
    "cov_int": lambda m: m.cov(m.tensor([[1, 2, 3], [2, 4, 7]])),
    "cov_1d": lambda m: m.cov(m.tensor([1., 2., 4.])),
    "cov_method": lambda m: m.tensor([[1., 2, 4], [1, 0, 3]]).cov(correction=2),
    "corrcoef": lambda m: m.corrcoef(m.tensor([[1, 2, 3], [2, 4, 7]])),
    "corrcoef_1d": lambda m: m.corrcoef(m.tensor([1., 2, 3])),
    "corrcoef_constant_row": lambda m: m.corrcoef(m.tensor([[1., 1, 1], [1, 2, 3]])),
    "isin": lambda m: m.isin(m.tensor([1, 2, 3]), m.tensor([2., 3.5])),
    "isin_scalar_element": lambda m: m.isin(2, m.tensor([1, 2])),
    "isin_scalar_test": lambda m: m.isin(m.tensor([1, 2]), 2),
    "isin_nan": lambda m: m.isin(m.tensor([float("nan")]), m.tensor([float("nan")])),
    "isin_invert": lambda m: m.isin(m.tensor([[1, 2], [3, 4]]), m.tensor([4, 1]), invert=True),
    "isin_keywords": lambda m: m.isin(elements=m.tensor([1, 2]), test_element=1),
    "gradient": lambda m: m.gradient(m.tensor(Y)),
    "gradient_spacing_dim": lambda m: m.gradient(m.tensor(Y), spacing=2., dim=1),
    "gradient_spacing_list": lambda m: m.gradient(m.tensor(Y), spacing=(2., 3.)),
    "gradient_coordinates_edge2": lambda m: m.gradient(
        m.tensor(Y), spacing=(m.tensor([0., 1, 3, 7]),), dim=1, edge_order=2),
    "gradient_coordinates": lambda m: m.gradient(
        m.tensor(Y), spacing=(m.tensor([0., 1]), m.tensor([0., 1, 3, 7]))),
    "gradient_int": lambda m: m.gradient(m.tensor([1, 2, 4]), spacing=2),
    "gradient_edge2": lambda m: m.gradient(m.tensor([[1., 5, 2, 7, 3], [0, 1, 0, 3, 9]]), dim=1,
                                           edge_order=2),
    "gradient_0d": lambda m: m.gradient(m.tensor(1.)),
    "trapezoid": lambda m: m.trapezoid(m.tensor(Y)),
    "trapezoid_dx": lambda m: m.trapezoid(m.tensor(Y), dx=2, dim=0),
    "trapezoid_x": lambda m: m.trapezoid(m.tensor(Y), m.tensor([0., 1, 3, 7])),
    "trapezoid_x_2d": lambda m: m.trapezoid(m.tensor(Y), m.tensor([[0., 1, 3, 7], [0, 1, 2, 3]])),
    "trapezoid_int": lambda m: m.trapezoid(m.tensor([1, 2, 3]), m.tensor([1, 2, 4])),
    "trapezoid_empty": lambda m: m.trapezoid(m.zeros(2, 0)),
    "trapz": lambda m: m.trapz(m.tensor(Y), m.tensor([0., 1, 3, 7])),
    "trapz_dx": lambda m: m.trapz(m.tensor(Y), dx=3),
    "cumulative_trapezoid": lambda m: m.cumulative_trapezoid(m.tensor(Y)),
    "cumulative_trapezoid_x": lambda m: m.cumulative_trapezoid(m.tensor(Y), m.tensor([0., 1, 3, 7])),
    "cumulative_trapezoid_dx": lambda m: m.cumulative_trapezoid(m.tensor(Y), dx=2, dim=0),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(CASES[name](ag), CASES[name](torch))


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.histogram(m.tensor([1, 2]), 2),
    lambda m: m.histogram(m.tensor([1., 2]), 2, range=(3., 1.)),
    lambda m: m.histogram(m.tensor([1., float("nan")]), 2),
    lambda m: m.cov(m.ones(2, 2, 2)),
    lambda m: m.cov(m.ones(2, 3), fweights=m.tensor([1., 2, 1])),
    lambda m: m.cov(m.ones(2, 3), aweights=m.tensor([1, 2, 1])),
    lambda m: m.gradient(m.tensor([1., 2]), edge_order=2),
    lambda m: m.gradient(m.tensor(Y), edge_order=3),
    lambda m: m.gradient(m.tensor(Y), spacing=[1., 2., 3.]),
    lambda m: m.gradient(m.tensor(Y), dim=[0, 0]),
    lambda m: m.trapezoid(m.tensor(Y), m.tensor([0., 1])),
], ids=["hist_int", "hist_range", "hist_nan", "cov_3d", "cov_fweights_float",
        "cov_aweights_int", "gradient_size", "gradient_order", "gradient_spacing",
        "gradient_dims", "trapezoid_x"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(ag)
    assert str(theirs.value)[:25] in str(ours.value)


def test_cov_warns_without_degrees_of_freedom():
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        out = ag.cov(ag.ones(2, 1))
    assert np.isnan(out.numpy()).all()


def test_gradients():
    a = ag.randn(3, 6, dtype=F64, requires_grad=True)
    w = ag.rand(6, dtype=F64) + 0.1
    x = ag.tensor([0., .5, 2, 2.5, 3.25, 4], dtype=F64, requires_grad=True)
    assert gradcheck(ag.cov, (a,)) and gradcheck(ag.corrcoef, (a,))
    assert gradgradcheck(lambda a: ag.cov(a, fweights=ag.tensor([1, 2, 1, 1, 3, 1]), aweights=w),
                         (a,))
    assert gradcheck(lambda a: ag.gradient(a, edge_order=2), (a,))
    assert gradcheck(lambda a, x: ag.gradient(a, spacing=(x,), dim=1, edge_order=2), (a, x))
    assert gradcheck(lambda a, x: ag.gradient(a, spacing=(x,), dim=1), (a, x))
    assert gradcheck(lambda a, x: ag.trapezoid(a, x), (a, x))
    assert gradcheck(lambda a: ag.trapz(a, dx=0.3, dim=0), (a,))
    assert gradgradcheck(lambda a, x: ag.cumulative_trapezoid(a, x), (a, x))
