"""nn.init: trunc_normal_, orthogonal_, eye_, dirac_, sparse_, the deprecated aliases and the
``generator=`` argument of every random initialiser.

Random fills are checked against analytic properties (bounds, truncated-normal moments,
orthogonality, zero counts); the deterministic ones against PyTorch where installed.
"""

import math
import warnings

import numpy as np
import pytest
from nn_helpers import arr

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn import init

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _phi(x):
    return math.exp(-x * x / 2) / math.sqrt(2 * math.pi)


def _Phi(x):
    return (1 + math.erf(x / math.sqrt(2))) / 2


def _truncated_moments(mean, std, a, b):
    """Mean and std of N(mean, std^2) truncated to [a, b] (the textbook formulas)."""
    al, be = (a - mean) / std, (b - mean) / std
    z = _Phi(be) - _Phi(al)
    m = mean + std * (_phi(al) - _phi(be)) / z
    def xphi(x):  # x * phi(x), which tends to 0 at +-inf
        return 0.0 if math.isinf(x) else x * _phi(x)

    var = std ** 2 * (1 + (xphi(al) - xphi(be)) / z - ((_phi(al) - _phi(be)) / z) ** 2)
    return m, math.sqrt(var)


@pytest.mark.parametrize("mean, std, a, b", [
    (0.0, 1.0, -2.0, 2.0),      # most of the mass inside: normal draws, redrawn outside
    (0.5, 0.02, 0.47, 0.6),     # typical ViT-style small std
    (0.0, 1.0, 1.5, 3.0),       # a tail window: uniform proposals with rejection
    (0.0, 1.0, -math.inf, 0.0)])
def test_trunc_normal_bounds_and_moments(mean, std, a, b):
    g = ag.Generator().manual_seed(0)
    t = ag.empty(40000, dtype=ag.float64)
    assert init.trunc_normal_(t, mean, std, a, b, generator=g) is t
    v = arr(t)
    assert v.min() >= a and v.max() <= b
    m, s = _truncated_moments(mean, std, a, b)
    assert abs(v.mean() - m) < 4 * s / math.sqrt(v.size)
    assert abs(v.std() - s) / s < 0.03


def test_trunc_normal_defaults_generator_and_warning():
    p = nn.Parameter(ag.empty(30, 20))
    out = init.trunc_normal_(p)
    assert out is p and p.grad_fn is None and p.requires_grad
    assert arr(p).min() >= -2 and arr(p).max() <= 2
    a = init.trunc_normal_(ag.empty(50), generator=ag.Generator().manual_seed(3))
    b = init.trunc_normal_(ag.empty(50), generator=ag.Generator().manual_seed(3))
    assert a.tolist() == b.tolist()
    with pytest.warns(UserWarning, match="mean is more than 2 std from \\[a, b\\]"):
        w = init.trunc_normal_(ag.empty(100), mean=5.0, std=1.0, a=-1.0, b=1.0)
    assert arr(w).min() >= -1 and arr(w).max() <= 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.trunc_normal_(ag.empty(5), mean=0.0, std=0.02)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (6, 2, 3, 1), (2, 3, 4)])
def test_orthogonal(shape):
    g = ag.Generator().manual_seed(1)
    t = ag.empty(*shape, dtype=ag.float64)
    assert init.orthogonal_(t, gain=2.0, generator=g) is t
    flat = arr(t).reshape(shape[0], -1)
    rows, cols = flat.shape
    gram = flat.T @ flat if rows >= cols else flat @ flat.T
    np.testing.assert_allclose(gram, 4.0 * np.eye(min(rows, cols)), atol=1e-12)
    again = init.orthogonal_(ag.empty(*shape, dtype=ag.float64),
                             gain=2.0, generator=ag.Generator().manual_seed(1))
    assert again.tolist() == t.tolist()


def test_orthogonal_errors_and_empty():
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        init.orthogonal_(ag.empty(3))
    e = ag.empty(0, 3)
    assert init.orthogonal_(e) is e


def test_eye_and_dirac_values():
    assert init.eye_(ag.empty(2, 3)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    p = nn.Parameter(ag.empty(3, 2))
    init.eye_(p)
    assert p.tolist() == [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]] and p.requires_grad
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(ag.empty(2, 2, 2))
    w = init.dirac_(ag.empty(2, 3, 3))
    assert w.tolist() == [[[0, 1, 0], [0, 0, 0], [0, 0, 0]], [[0, 0, 0], [0, 1, 0], [0, 0, 0]]]
    # a dirac conv2d is the identity on the first channels
    conv = nn.Conv2d(3, 3, 3, padding=1, bias=False)
    init.dirac_(conv.weight)
    x = ag.randn(1, 3, 4, 5)
    assert conv(x).tolist() == x.tolist()
    grouped = nn.Conv2d(4, 4, 3, padding=1, groups=2, bias=False)
    init.dirac_(grouped.weight, groups=2)
    x = ag.randn(1, 4, 3, 3)
    np.testing.assert_allclose(arr(grouped(x)), arr(x))
    with pytest.raises(ValueError, match="Only tensors with 3, 4, or 5 dimensions are supported"):
        init.dirac_(ag.empty(2, 2))
    with pytest.raises(ValueError, match="dim 0 must be divisible by groups"):
        init.dirac_(ag.empty(3, 2, 3), groups=2)


def test_sparse():
    g = ag.Generator().manual_seed(2)
    t = init.sparse_(ag.empty(10, 400, dtype=ag.float64), sparsity=0.25, std=0.5, generator=g)
    v = arr(t)
    assert ((v == 0).sum(axis=0) == math.ceil(0.25 * 10)).all()
    nonzero = v[v != 0]
    assert abs(nonzero.std() - 0.5) < 0.03
    again = init.sparse_(ag.empty(10, 400, dtype=ag.float64), 0.25, 0.5,
                         generator=ag.Generator().manual_seed(2))
    assert again.tolist() == t.tolist()
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.sparse_(ag.empty(3, 3, 3), 0.1)


@pytest.mark.parametrize("name, args", [
    ("uniform_", ()), ("normal_", ()), ("trunc_normal_", ()), ("xavier_uniform_", ()),
    ("xavier_normal_", ()), ("kaiming_uniform_", ()), ("kaiming_normal_", ()),
    ("orthogonal_", ()), ("sparse_", (0.3,))])
def test_every_random_initialiser_takes_a_generator(name, args):
    fn = getattr(init, name)
    a = fn(ag.empty(6, 5), *args, generator=ag.Generator().manual_seed(9))
    b = fn(ag.empty(6, 5), *args, generator=ag.Generator().manual_seed(9))
    assert a.tolist() == b.tolist()


def test_deprecated_aliases_warn_and_work():
    with pytest.warns(FutureWarning, match="`nn.init.eye` is now deprecated in favor of "
                                           "`nn.init.eye_`"):
        t = init.eye(ag.empty(2, 2))
    assert t.tolist() == [[1.0, 0.0], [0.0, 1.0]]
    for old in ("uniform", "normal", "constant", "dirac", "xavier_uniform", "xavier_normal",
                "kaiming_uniform", "kaiming_normal", "orthogonal", "sparse"):
        assert getattr(init, old).__name__ == old


def test_fan_errors_as_pytorch():
    for fn in (init.xavier_uniform_, init.xavier_normal_, init.kaiming_uniform_,
               init.kaiming_normal_):
        with pytest.raises(ValueError, match="fewer than 2 dimensions"):
            fn(ag.empty(4))
    with pytest.raises(ValueError, match=r"please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_normal_(ag.empty(2, 2), mode="fan_avg")


@needs_torch
def test_names_and_deterministic_fills_match_pytorch():
    assert set(torch.nn.init.__all__) <= set(init.__all__)
    assert torch.nn.init.eye_(torch.empty(3, 5)).tolist() == init.eye_(ag.empty(3, 5)).tolist()
    for shape, groups in (((4, 2, 3), 1), ((6, 4, 3, 2), 2), ((3, 3, 3, 3, 2), 3),
                          ((2, 5, 4), 1), ((8, 1, 3, 3), 4)):
        t = torch.nn.init.dirac_(torch.empty(*shape), groups)
        a = init.dirac_(ag.empty(*shape), groups)
        assert a.tolist() == t.tolist(), (shape, groups)
    for bad in (lambda m: m.nn.init.dirac_(m.empty(2, 2)),
                lambda m: m.nn.init.eye_(m.empty(2)),
                lambda m: m.nn.init.orthogonal_(m.empty(2)),
                lambda m: m.nn.init.sparse_(m.empty(2), 0.5)):
        with pytest.raises(ValueError) as theirs:
            bad(torch)
        with pytest.raises(ValueError, match=re_escape(str(theirs.value))):
            bad(ag)


def re_escape(text):
    import re

    return re.escape(text)
