"""cosine_similarity, normalize, pairwise_distance, cdist and one_hot (functional, modules and
the top-level names): hand-computed references, PyTorch's gradients at zero distances and
zero vectors, gradcheck/gradgradcheck, errors, and PyTorch itself where installed."""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from nn_helpers import arr

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn import functional as F

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

rng = np.random.default_rng(5)
A = rng.standard_normal((4, 3))
B = rng.standard_normal((5, 3))
INF = math.inf


def t(a, grad=False):
    return ag.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def ref_cdist(a, b, p):
    d = np.abs(a[:, None, :] - b[None, :, :])
    if p == 0:
        return (d != 0).sum(-1).astype(float)
    if p == INF:
        return d.max(-1)
    return (d ** p).sum(-1) ** (1 / p)


@pytest.mark.parametrize("p", [0, 0.5, 1, 1.5, 2, 3, INF])
def test_cdist_values(p):
    np.testing.assert_allclose(arr(ag.cdist(t(A), t(B), p=p)), ref_cdist(A, B, p), rtol=1e-12)


def test_cdist_matrix_product_mode_and_batches():
    a, b = rng.standard_normal((2, 30, 3)), rng.standard_normal((1, 27, 3))
    out = ag.cdist(t(a), t(b))  # 30 rows: the matrix-product path by default
    expect = np.stack([ref_cdist(a[i], b[0], 2) for i in range(2)])
    np.testing.assert_allclose(arr(out), expect, rtol=1e-9)
    forced = ag.cdist(t(A), t(B), compute_mode="use_mm_for_euclid_dist")
    np.testing.assert_allclose(arr(forced), ref_cdist(A, B, 2), rtol=1e-9)
    direct = ag.cdist(t(a), t(b), compute_mode="donot_use_mm_for_euclid_dist")
    np.testing.assert_allclose(arr(direct), expect, rtol=1e-12)
    assert type(direct.grad_fn).__name__ == "CdistBackward0" or direct.grad_fn is None


@pytest.mark.parametrize("p", [0, 0.5, 1, 2, 3, INF])
@pytest.mark.parametrize("mode", ["donot_use_mm_for_euclid_dist", "use_mm_for_euclid_dist"])
def test_cdist_gradient_at_zero_distance_is_zero(p, mode):
    x = t(A, grad=True)
    y = t(A.copy(), grad=True)
    ag.cdist(x, y, p=p, compute_mode=mode).diagonal().sum().backward()
    assert np.all(arr(x.grad) == 0) and np.all(arr(y.grad) == 0)


@pytest.mark.parametrize("p, expect", [(0.5, [0.0, 2.224744871391589, 1.816496580927726]),
                                       (1.5, [0.0, 0.7063840791276677, 0.8651402781442813]),
                                       (3, [0.0, 0.37383614973583884, 0.8411313369056374])])
def test_cdist_gradient_with_an_equal_coordinate_is_finite(p, expect):
    # PyTorch's numbers: the coordinate where x1 == x2 gets 0 (was NaN for 1 < p < 2)
    x = t([[1.0, 2.0, 3.0]], grad=True)
    ag.cdist(x, t([[1.0, 0.0, 0.0]]), p=p).sum().backward()
    np.testing.assert_allclose(arr(x.grad), [expect], rtol=1e-9)


def test_cdist_inf_gradient_goes_to_every_tied_coordinate():
    x = t([[1.0, 2.0, -2.0]], grad=True)
    ag.cdist(x, t([[0.0, 0.0, 0.0]]), p=INF).sum().backward()
    np.testing.assert_allclose(arr(x.grad), [[0.0, 1.0, -1.0]])


@pytest.mark.parametrize("p", [1, 1.5, 2, 3, INF])
def test_cdist_gradchecks(p):
    a, b = t(A, grad=True), t(B[:3] + 0.01, grad=True)
    assert gradcheck(lambda x, y: ag.cdist(x, y, p=p), (a, b))
    if p not in (1, INF):  # piecewise linear: no second derivative to compare
        assert gradgradcheck(lambda x, y: ag.cdist(x, y, p=p), (a, b))


def test_cdist_errors():
    with pytest.raises(RuntimeError, match="at least 2D"):
        ag.cdist(t(A[0]), t(B))
    with pytest.raises(RuntimeError, match="same number of columns"):
        ag.cdist(t(A), t(B[:, :2]))
    with pytest.raises(RuntimeError, match="non-negative p"):
        ag.cdist(t(A), t(B), p=-1)
    with pytest.raises(RuntimeError, match="floating-point"):
        ag.cdist(ag.ones(2, 2, dtype=ag.int64), ag.ones(2, 2, dtype=ag.int64))
    with pytest.raises(ValueError, match="not a valid value for compute_mode"):
        ag.cdist(t(A), t(B), compute_mode="fast")
    with pytest.raises(RuntimeError):
        ag.cdist(t(np.ones((2, 3, 2))), t(np.ones((3, 4, 2))))


def test_cosine_similarity_values_broadcasting_and_zero_vector():
    out = F.cosine_similarity(t(A), t(A[:1] * 2.0))  # (4, 3) with (1, 3)
    expect = (A * A[:1]).sum(1) / (np.linalg.norm(A, axis=1) * np.linalg.norm(A[:1]))
    np.testing.assert_allclose(arr(out), expect, rtol=1e-12)
    assert F.cosine_similarity(t(A[0]), t(B[0]), dim=0).shape == ()
    # a zero vector: 0 similarity and PyTorch's gradient x2 / (|x2| eps) (the norm clamped in
    # value only)
    z = t(np.zeros((2, 3)), grad=True)
    F.cosine_similarity(z, t(np.ones((2, 3)))).sum().backward()
    np.testing.assert_allclose(arr(z.grad), np.full((2, 3), 1 / (math.sqrt(3) * 1e-8)),
                               rtol=1e-6)
    with pytest.raises(RuntimeError, match="floating point"):
        F.cosine_similarity(ag.ones(2, 3, dtype=ag.int64), ag.ones(2, 3, dtype=ag.int64))
    with pytest.raises(RuntimeError):
        F.cosine_similarity(t(A), t(B))


def test_normalize_and_pairwise_distance():
    for p in (1, 2, 3, INF):
        norm = np.linalg.norm(A, ord=p, axis=1, keepdims=True)
        np.testing.assert_allclose(arr(F.normalize(t(A), p=p)), A / norm, rtol=1e-12)
        d = A - B[:4] + 1e-6
        np.testing.assert_allclose(arr(F.pairwise_distance(t(A), t(B[:4]), p=p)),
                                   np.linalg.norm(d, ord=p, axis=1), rtol=1e-12)
    z = t(np.zeros((2, 3)), grad=True)
    F.normalize(z).sum().backward()
    np.testing.assert_allclose(arr(z.grad), np.full((2, 3), 1e12))
    assert F.pairwise_distance(t(A), t(B[:4]), keepdim=True).shape == (4, 1)
    assert F.pairwise_distance(t(A[0]), t(B[0])).shape == ()
    out = ag.zeros(4, 3, dtype=ag.float64)
    F.normalize(t(A), out=out)
    np.testing.assert_allclose(arr(out), A / np.linalg.norm(A, axis=1, keepdims=True))


@pytest.mark.parametrize("fn", [
    lambda a, b: F.cosine_similarity(a, b),
    lambda a, b: F.cosine_similarity(a, b, dim=0),
    lambda a, b: F.pairwise_distance(a, b, p=3),
    lambda a, b: F.normalize(a, p=1.5) * b,
])
def test_gradchecks(fn):
    leaves = (t(A, grad=True), t(B[:4], grad=True))
    assert gradcheck(fn, leaves)
    assert gradgradcheck(fn, leaves)


def test_modules_and_top_level_names():
    assert repr(nn.CosineSimilarity()) == "CosineSimilarity()"
    assert nn.PairwiseDistance(p=3).norm == 3
    np.testing.assert_allclose(arr(nn.CosineSimilarity(dim=0, eps=1e-3)(t(A), t(B[:4]))),
                               arr(F.cosine_similarity(t(A), t(B[:4]), 0, 1e-3)))
    np.testing.assert_allclose(arr(nn.PairwiseDistance(1.0, 1e-3, True)(t(A), t(B[:4]))),
                               arr(F.pairwise_distance(t(A), t(B[:4]), 1.0, 1e-3, True)))
    assert ag.cosine_similarity is F.cosine_similarity
    assert ag.pairwise_distance is F.pairwise_distance


def test_one_hot_as_pytorch():
    assert F.one_hot(ag.tensor([0, 2, 1])).shape == (3, 3)
    assert F.one_hot(ag.tensor([], dtype=ag.int64), 3).shape == (0, 3)
    for bad, match in [((ag.tensor([], dtype=ag.int64), -1), "empty tensor"),
                       ((ag.tensor([], dtype=ag.int64), 0), "empty tensor"),
                       ((ag.tensor([1], dtype=ag.int32), 3), "LongTensor"),
                       ((ag.tensor([0, -1]), 3), "non-negative"),
                       ((ag.tensor([3]), 2), "smaller than num_classes")]:
        with pytest.raises(RuntimeError, match=match):
            F.one_hot(*bad)


# -- against PyTorch -----------------------------------------------------------------------

def _compare(tf, af, arrays, rtol=1e-9, atol=1e-12):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    xs = [ag.tensor(a, requires_grad=True) for a in arrays]
    tout, aout = tf(*ts), af(*xs)
    assert tuple(aout.shape) == tuple(tout.shape)
    np.testing.assert_allclose(arr(aout), tout.detach().numpy(), rtol=rtol, atol=atol)
    seed = np.random.default_rng(1).standard_normal(tuple(tout.shape))
    tout.backward(torch.tensor(seed))
    aout.backward(ag.tensor(seed))
    for tt, at in zip(ts, xs):
        np.testing.assert_allclose(arr(at.grad), tt.grad.numpy(), rtol=rtol * 10, atol=atol * 10)


@needs_torch
@settings(max_examples=20, deadline=None)
@given(p=st.sampled_from([0, 0.5, 1, 1.5, 2, 3, INF]), rows=st.integers(1, 30),
       cols=st.integers(1, 4), batch=st.sampled_from([(), (2,)]), equal=st.booleans(),
       mode=st.sampled_from(["use_mm_for_euclid_dist_if_necessary",
                             "donot_use_mm_for_euclid_dist"]),
       seed=st.integers(0, 2 ** 16))
def test_cdist_against_torch(p, rows, cols, batch, equal, mode, seed):
    r = np.random.default_rng(seed)
    a = r.standard_normal((*batch, rows, cols))
    b = a.copy() if equal and mode.startswith("donot") else r.standard_normal((*batch, 3, cols))
    _compare(lambda x, y: torch.cdist(x, y, p=p, compute_mode=mode),
             lambda x, y: ag.cdist(x, y, p=p, compute_mode=mode), [a, b], rtol=1e-8, atol=1e-10)


@needs_torch
@settings(max_examples=20, deadline=None)
@given(shapes=st.sampled_from([((4, 3), (4, 3), 1), ((2, 3, 4), (3, 1), -1), ((2, 3), (3,), -1),
                               ((3,), (3,), 0), ((4, 3), (1, 3), 0)]),
       p=st.sampled_from([1, 2, 3, INF]), zero=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_distances_against_torch(shapes, p, zero, seed):
    r = np.random.default_rng(seed)
    s1, s2, dim = shapes
    a, b = r.standard_normal(s1), r.standard_normal(s2)
    if zero:
        a[..., 0] = 0.0
        a = a * 0.0
    _compare(lambda x, y: torch.nn.functional.cosine_similarity(x, y, dim=dim),
             lambda x, y: F.cosine_similarity(x, y, dim=dim), [a, b], rtol=1e-7)
    _compare(lambda x, y: torch.nn.functional.pairwise_distance(x, y, p=p),
             lambda x, y: F.pairwise_distance(x, y, p=p), [a, b])
    _compare(lambda x: torch.nn.functional.normalize(x, p=p, dim=dim),
             lambda x: F.normalize(x, p=p, dim=dim), [a])


@needs_torch
def test_one_hot_against_torch():
    x = np.array([[0, 3], [2, 1]])
    np.testing.assert_array_equal(F.one_hot(ag.tensor(x)).tolist(),
                                  torch.nn.functional.one_hot(torch.tensor(x)).tolist())
    np.testing.assert_array_equal(F.one_hot(ag.tensor(x), 6).tolist(),
                                  torch.nn.functional.one_hot(torch.tensor(x), 6).tolist())
