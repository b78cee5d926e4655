"""Scans, sorting and more reductions (issue #12): values, return types, NaN rules,
errors, gradients and double backward, against PyTorch where it is installed (random
shapes by hypothesis) and against float64 formulas without it."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

F64 = ag.float64
NAN = float("nan")
SETTINGS = settings(max_examples=25, deadline=None)


def _distinct(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Distinct values (so orders and picked indices are unique), a few zeros allowed."""
    n = math.prod(shape)
    return (rng.permutation(4 * n + 4)[:n].astype(np.float64) * 0.37 - n).reshape(shape)


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def _outputs(out):
    return tuple(out) if isinstance(out, tuple) else (out,)


def _differential(fn_ag, fn_torch, data: np.ndarray, seed: int = 0, indices: bool = True,
                  double: bool = True) -> None:
    """Values (and indices) and first and second derivatives agree with PyTorch's."""
    x = ag.tensor(data, dtype=F64, requires_grad=True)
    t = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    out_a, out_t = _outputs(fn_ag(x)), _outputs(fn_torch(t))
    assert len(out_a) == len(out_t)
    for a, b in zip(out_a, out_t):
        if not indices and not b.is_floating_point():
            continue
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12, equal_nan=True)
    va, vt = out_a[0], out_t[0]
    if not vt.requires_grad:
        return
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(tuple(vt.shape))
    ga, = ag.autograd.grad((va * ag.tensor(w, dtype=F64)).sum(), x, create_graph=double)
    gt, = torch.autograd.grad((vt * torch.tensor(w)).sum(), t, create_graph=double)
    np.testing.assert_allclose(ga.detach().numpy(), gt.detach().numpy(), rtol=1e-9, atol=1e-10)
    if double and gt.requires_grad:
        v = rng.standard_normal(tuple(gt.shape))
        gga = ag.autograd.grad((ga * ag.tensor(v, dtype=F64)).sum(), x, allow_unused=True)[0]
        ggt = torch.autograd.grad((gt * torch.tensor(v)).sum(), t, allow_unused=True)[0]
        ref = np.zeros(data.shape) if ggt is None else ggt.numpy()
        got = np.zeros(data.shape) if gga is None else gga.numpy()
        np.testing.assert_allclose(got, ref, rtol=1e-8, atol=1e-9)


# -- PyTorch differential, random shapes ------------------------------------------------------

SAME_NAME = [
    ("cumprod", lambda m, x, d: m.cumprod(x, d)),
    ("cummax", lambda m, x, d: m.cummax(x, d)),
    ("cummin", lambda m, x, d: m.cummin(x, d)),
    ("logcumsumexp", lambda m, x, d: m.logcumsumexp(x, d)),
    ("diff", lambda m, x, d: m.diff(x, dim=d)),
    ("diff-n2-pre-app", lambda m, x, d: m.diff(x, 2, d, prepend=x, append=x * 2)),
    ("sort", lambda m, x, d: m.sort(x, d)),
    ("sort-desc", lambda m, x, d: m.sort(x, dim=d, descending=True, stable=True)),
    ("argsort", lambda m, x, d: m.argsort(x, d, descending=True)),
    ("msort", lambda m, x, d: m.msort(x)),
    ("topk", lambda m, x, d: m.topk(x, 1, d)),
    ("topk-smallest", lambda m, x, d: m.topk(x, 1, d, largest=False)),
    ("kthvalue", lambda m, x, d: m.kthvalue(x, 1, d, keepdim=True)),
    ("median", lambda m, x, d: m.median(x)),
    ("median-dim", lambda m, x, d: m.median(x, d)),
    ("nanmedian-dim", lambda m, x, d: m.nanmedian(x, d, keepdim=True)),
    ("mode", lambda m, x, d: m.mode(x, d)),
    ("quantile", lambda m, x, d: m.quantile(x, 0.37, d)),
    ("quantile-all", lambda m, x, d: m.quantile(x, 0.5)),
    ("nanquantile-keepdim", lambda m, x, d: m.nanquantile(x, 0.8, d, keepdim=True)),
    ("var_mean", lambda m, x, d: m.var_mean(x, d)),
    ("std_mean", lambda m, x, d: m.std_mean(x, d, correction=0, keepdim=True)),
    ("nansum", lambda m, x, d: m.nansum(x, d)),
    ("nanmean", lambda m, x, d: m.nanmean(x, d)),
    ("aminmax", lambda m, x, d: m.aminmax(x, dim=d)),
    ("count_nonzero", lambda m, x, d: m.count_nonzero(x, d)),
    ("logsumexp", lambda m, x, d: m.logsumexp(x, d)),
    ("prod", lambda m, x, d: m.prod(x, d)),
]


@needs_torch
@pytest.mark.parametrize("name,fn", SAME_NAME, ids=[n for n, _ in SAME_NAME])
@SETTINGS
@given(shape=shapes, seed=st.integers(0, 2 ** 16), dim=st.integers(-3, 2),
       zeros=st.integers(0, 2))
def test_matches_pytorch(name, fn, shape, seed, dim, zeros):
    rng = np.random.default_rng(seed)
    data = _distinct(rng, shape)
    flat = data.reshape(-1)
    for p in rng.choice(flat.size, size=min(zeros, flat.size), replace=False):
        flat[p] = 0.0  # zeros: cumprod's and prod's hard case (ties with distinct values gone)
    if zeros and name in ("mode", "median", "median-dim", "nanmedian-dim", "kthvalue",
                          "sort", "sort-desc", "argsort", "msort", "topk", "topk-smallest",
                          "cummax", "cummin", "aminmax", "quantile", "quantile-all",
                          "nanquantile-keepdim"):
        # ties make PyTorch's indices (and so which tied element gets a quantile's gradient)
        # unspecified
        data = _distinct(rng, shape)
    d = dim % len(shape) if -len(shape) <= dim < len(shape) else 0
    double = name not in ("count_nonzero", "argsort")
    _differential(lambda x: fn(ag, x, d), lambda x: fn(torch, x, d), data, seed,
                  double=double)


@needs_torch
def test_cumprod_gradient_with_zeros_matches_pytorch_twice():
    data = np.array([[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 1.5, -2.0, 4.0, 0.5], [1, 2, 3, 4, 0.0]])
    _differential(lambda x: x.cumprod(1), lambda x: x.cumprod(1), data)
    _differential(lambda x: x.cumprod(0), lambda x: x.cumprod(0), data.T.copy())


@needs_torch
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_interpolation_modes_match_pytorch(interpolation):
    data = _distinct(np.random.default_rng(3), (3, 6))
    for q in (0.0, 0.1, 0.5, 0.7, 1.0):
        _differential(lambda x: ag.quantile(x, q, 1, interpolation=interpolation),
                      lambda x: torch.quantile(x, q, 1, interpolation=interpolation), data)
    qs = [0.25, 0.5, 0.9]
    _differential(lambda x: ag.quantile(x, ag.tensor(qs, dtype=F64), 0, keepdim=True,
                                        interpolation=interpolation),
                  lambda x: torch.quantile(x, torch.tensor(qs, dtype=torch.float64), 0,
                                           keepdim=True, interpolation=interpolation), data)


@needs_torch
@pytest.mark.parametrize("name,fn", [
    ("sort", lambda m, x: m.sort(x, 1)),
    ("sort-desc", lambda m, x: m.sort(x, 1, descending=True)),
    ("median", lambda m, x: m.median(x)),
    ("median-dim", lambda m, x: m.median(x, 1)),
    ("nanmedian", lambda m, x: m.nanmedian(x)),
    ("nanmedian-dim", lambda m, x: m.nanmedian(x, 1)),
    ("cummax", lambda m, x: m.cummax(x, 1)),
    ("cummin", lambda m, x: m.cummin(x, 1)),
    ("quantile", lambda m, x: m.quantile(x, 0.4, 1)),
    ("nanquantile", lambda m, x: m.nanquantile(x, 0.4, 1)),
    ("nansum", lambda m, x: m.nansum(x, 1)),
    ("nanmean", lambda m, x: m.nanmean(x, 1)),
    ("topk", lambda m, x: m.topk(x, 2, 1)),
])
def test_nan_rules_match_pytorch(name, fn):
    data = np.array([[3.0, NAN, 1.0, 2.0, NAN], [0.5, -1.0, 4.0, 2.5, 1.5],
                     [NAN, NAN, NAN, NAN, NAN]])
    x = ag.tensor(data, dtype=F64)
    t = torch.tensor(data, dtype=torch.float64)
    for a, b in zip(_outputs(fn(ag, x)), _outputs(fn(torch, t))):
        a, b = a.numpy(), b.numpy()
        if not np.issubdtype(b.dtype, np.floating):
            a, b = a[:2], b[:2]  # PyTorch's indices in an all-NaN row are unspecified
        np.testing.assert_allclose(a, b, equal_nan=True)


@needs_torch
def test_median_all_gradient_is_shared_among_ties_as_pytorch():
    data = np.array([1.0, 2.0, 2.0, 3.0, 2.0])
    _differential(lambda x: x.median(), lambda x: x.median(), data)
    _differential(lambda x: x.nanmedian(), lambda x: x.nanmedian(), np.array([1.0, NAN, 3.0]))


@needs_torch
def test_cummax_ties_take_the_latest_index_as_pytorch():
    data = np.array([[1.0, 1.0, 0.0, 1.0, 2.0, 2.0]])
    for op in ("cummax", "cummin"):
        a, b = getattr(ag, op)(ag.tensor(data), 1), getattr(torch, op)(torch.tensor(data), 1)
        assert a.indices.tolist() == b.indices.tolist()
    _differential(lambda x: x.cummax(1), lambda x: x.cummax(1), data)


@needs_torch
def test_mode_picks_smallest_most_frequent_and_its_last_index():
    data = np.array([[1.0, 2.0, 2.0, 1.0, 3.0], [2.0, 1.0, 1.0, 2.0, 0.0]])
    _differential(lambda x: x.mode(1), lambda x: x.mode(1), data)


# -- without PyTorch -----------------------------------------------------------------------

def test_return_types_are_named():
    x = ag.tensor([[3.0, 1.0, 2.0]])
    for out, name, fields in [(x.sort(), "sort", ("values", "indices")),
                              (x.topk(2), "topk", ("values", "indices")),
                              (x.kthvalue(1), "kthvalue", ("values", "indices")),
                              (x.median(1), "median", ("values", "indices")),
                              (x.nanmedian(1), "nanmedian", ("values", "indices")),
                              (x.mode(1), "mode", ("values", "indices")),
                              (x.cummax(1), "cummax", ("values", "indices")),
                              (x.cummin(1), "cummin", ("values", "indices")),
                              (x.aminmax(), "aminmax", ("min", "max"))]:
        assert type(out).__name__ == name and out._fields == fields
        assert type(out) is getattr(ag.return_types, name)


def test_median_is_the_lower_median():
    x = ag.tensor([4.0, 1.0, 3.0, 2.0])
    assert x.median().item() == 2.0
    assert x.reshape(2, 2).median(1).values.tolist() == [1.0, 2.0]
    assert ag.quantile(x, 0.5).item() == 2.5


def test_sort_is_stable_and_nan_is_largest():
    x = ag.tensor([2.0, NAN, 1.0, 2.0, 1.0])
    assert x.sort(stable=True).indices.tolist() == [2, 4, 0, 3, 1]
    assert x.sort(descending=True, stable=True).indices.tolist() == [1, 0, 3, 2, 4]
    assert x.argsort().tolist() == [2, 4, 0, 3, 1]


def test_cumprod_gradient_with_zeros_against_formula():
    # out = (a, ab, abc): d/da = 1 + b + bc, d/db = a + ac, d/dc = ab
    a, b, c = 2.0, 0.0, 3.0
    x = ag.tensor([a, b, c], dtype=F64, requires_grad=True)
    g, = ag.autograd.grad(x.cumprod(0).sum(), x, create_graph=True)
    assert g.tolist() == [1 + b + b * c, a + a * c, a * b]
    # d/db of (d/da + d/db + d/dc) = 1 + c + a
    h, = ag.autograd.grad(g.sum(), x)
    assert h.tolist()[1] == 1 + c + a


def test_cumprod_integer_is_int64_and_inplace():
    x = ag.tensor([[1, 2, 3]])
    assert x.cumprod(1).dtype == ag.int64 and x.cumprod(1).tolist() == [[1, 2, 6]]
    y = ag.tensor([1.0, 2.0, 3.0])
    y.cumprod_(0)
    assert y.tolist() == [1.0, 2.0, 6.0]


def test_sort_gradient_goes_back_to_the_picked_positions_twice():
    x = ag.tensor([[3.0, 1.0, 2.0]], dtype=F64, requires_grad=True)
    v, i = x.topk(2)
    w = ag.tensor([[10.0, 20.0]], dtype=F64)
    g, = ag.autograd.grad((v * v * w).sum(), x, create_graph=True)
    assert g.tolist() == [[60.0, 0.0, 80.0]]
    h, = ag.autograd.grad(g.sum(), x)
    assert h.tolist() == [[20.0, 0.0, 40.0]]
    assert v.grad_fn.name() == "TopkBackward0"


def test_logcumsumexp_does_not_overflow():
    x = ag.tensor([1000.0, 1000.0, -1000.0], dtype=F64, requires_grad=True)
    out = ag.logcumsumexp(x, 0)
    np.testing.assert_allclose(out.tolist(), [1000.0, 1000.0 + math.log(2), 1000 + math.log(2)])
    out.sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


def test_logsumexp_over_an_empty_dim_is_minus_inf():
    # used to raise ValueError (the max of an empty slice)
    x = ag.zeros(2, 0, requires_grad=True)
    out = ag.logsumexp(x, 1)
    assert out.tolist() == [-math.inf, -math.inf]
    out.sum().backward()
    assert tuple(x.grad.shape) == (2, 0)


def test_diff_values_and_bool():
    x = ag.tensor([1.0, 4.0, 9.0, 16.0])
    assert x.diff().tolist() == [3.0, 5.0, 7.0]
    assert x.diff(2).tolist() == [2.0, 2.0]
    assert x.diff(5).tolist() == []
    assert ag.diff(x, prepend=ag.tensor([0.0])).tolist() == [1.0, 3.0, 5.0, 7.0]
    assert ag.tensor([True, True, False]).diff().tolist() == [False, True]


def test_nan_reductions_and_count():
    x = ag.tensor([[1.0, NAN, 3.0], [0.0, 0.0, 2.0]])
    assert ag.nansum(x).item() == 6.0
    assert x.nanmean(1).tolist() == pytest.approx([2.0, 2.0 / 3.0])
    assert x.count_nonzero().item() == 4 and x.count_nonzero(0).tolist() == [1, 1, 2]
    v, m = ag.var_mean(ag.tensor([1.0, 2.0, 3.0]))
    assert (v.item(), m.item()) == (1.0, 2.0)
    mn, mx = ag.tensor([[1.0, 5.0], [-2.0, 3.0]]).aminmax(dim=0)
    assert (mn.tolist(), mx.tolist()) == ([-2.0, 3.0], [1.0, 5.0])


@pytest.mark.parametrize("call,error", [
    (lambda x: x.topk(4), RuntimeError),
    (lambda x: x.topk(-1), RuntimeError),
    (lambda x: x.kthvalue(0), RuntimeError),
    (lambda x: x.kthvalue(4), RuntimeError),
    (lambda x: ag.zeros(2, 0).kthvalue(1, 1), IndexError),
    (lambda x: ag.zeros(0).quantile(0.5), RuntimeError),
    (lambda x: x.sort(2), IndexError),
    (lambda x: x.cummax(-3), IndexError),
    (lambda x: x.quantile(1.5), RuntimeError),
    (lambda x: x.quantile(0.5, interpolation="cubic"), RuntimeError),
    (lambda x: x.long().quantile(0.5), RuntimeError),
    (lambda x: x.quantile(ag.tensor([[0.5]])), RuntimeError),
    (lambda x: x.diff(-1), RuntimeError),
    (lambda x: x.sum().diff(), RuntimeError),
    (lambda x: x.diff(prepend=ag.tensor(1.0)), RuntimeError),
    (lambda x: x.long().logcumsumexp(0), NotImplementedError),
    (lambda x: x.long().nanmean(), RuntimeError),
    (lambda x: ag.zeros(0).aminmax(), RuntimeError),
    (lambda x: ag.zeros(2, 0).median(1), IndexError),
    (lambda x: ag.zeros(2, 0).mode(1), IndexError),
])
def test_errors_have_pytorchs_classes(call, error):
    x = ag.tensor([3.0, 1.0, 2.0])
    with pytest.raises(error):
        call(x)
    assert x.tolist() == [3.0, 1.0, 2.0]


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m, x: x.topk(4), lambda m, x: x.kthvalue(0), lambda m, x: x.kthvalue(4),
    lambda m, x: x.sort(2), lambda m, x: x.quantile(1.5),
    lambda m, x: x.quantile(0.5, interpolation="cubic"), lambda m, x: x.diff(-1),
    lambda m, x: x.sum().diff(), lambda m, x: x.long().nanmean(),
    lambda m, x: m.zeros(0).aminmax(), lambda m, x: m.zeros(2, 0).median(1),
    lambda m, x: m.zeros(2, 0).mode(1), lambda m, x: m.zeros(2, 0).kthvalue(1, 1),
    lambda m, x: x.long().logcumsumexp(0), lambda m, x: m.zeros(0).quantile(0.5),
    lambda m, x: x.cummax(-3), lambda m, x: x.topk(-1),
])
def test_error_classes_agree_with_pytorch(call):
    errors = []
    for m in (ag, torch):
        with pytest.raises(Exception) as info:
            call(m, m.tensor([3.0, 1.0, 2.0]))
        errors.append(info.type)
    assert errors[0] is errors[1] or issubclass(errors[0], errors[1])


def test_zero_dim_inputs():
    x = ag.tensor(2.0, requires_grad=True)
    assert x.sort().values.item() == 2.0 and x.sort().indices.item() == 0
    assert x.cummax(0).values.item() == 2.0 and x.cumprod(0).item() == 2.0
    assert x.kthvalue(1).values.item() == 2.0 and x.median(0).values.item() == 2.0
    assert x.logcumsumexp(0).item() == 2.0 and x.quantile(0.5).item() == 2.0
    g, = ag.autograd.grad(x.topk(1).values * 3, x)
    assert g.item() == 3.0


@needs_torch
def test_var_of_one_element_has_pytorchs_nan_gradient():
    # used to raise ZeroDivisionError in the backward (no degrees of freedom)
    _differential(lambda x: x.var(), lambda x: x.var(), np.array([1.5]), double=False)
    _differential(lambda x: ag.var_mean(x, 1), lambda x: torch.var_mean(x, 1),
                  np.array([[1.5], [2.0]]), double=False)
