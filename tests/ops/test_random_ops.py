"""Random sampling ops (``ops/families/random_ops.py``): seeding, distributions (moments in
float64 over many draws), PyTorch's overloads, shapes and error classes, gradients of
``normal``, and "nothing changes on error"."""

from __future__ import annotations

import math

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

N = 200_000
DEVICES = ["cpu", "strict"]


def _moments(t):
    x = t.to(ag.float64)
    return x.mean().item(), x.var().item()


def _close(value, expected, sd, n=N):
    """Within 6 standard errors of the sample mean."""
    assert abs(value - expected) <= 6 * sd / math.sqrt(n) + 1e-12, (value, expected)


# -- seeding ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda: ag.empty(5).uniform_(-1, 2), lambda: ag.empty(5).normal_(1, 2),
    lambda: ag.empty(5).exponential_(3.0), lambda: ag.empty(5).random_(0, 100),
    lambda: ag.empty(5).bernoulli_(0.3), lambda: ag.poisson(ag.full((5,), 4.0)),
    lambda: ag.multinomial(ag.ones(6), 3), lambda: ag.normal(0.0, 1.0, (5,)),
    lambda: ag.bernoulli(ag.full((5,), 0.5)), lambda: ag.normal(ag.zeros(5), 1.0),
])
def test_manual_seed_repeats_and_generator_is_separate(call):
    ag.manual_seed(11)
    a = call().tolist()
    ag.manual_seed(11)
    assert call().tolist() == a
    ag.manual_seed(12)
    b = call().tolist()
    ag.manual_seed(12)
    assert call().tolist() == b


def test_generator_argument_is_used():
    g1, g2 = ag.Generator().manual_seed(5), ag.Generator().manual_seed(5)
    assert (ag.empty(4).uniform_(generator=g1).tolist()
            == ag.empty(4).uniform_(generator=g2).tolist())
    assert ag.multinomial(ag.ones(5), 5, generator=g1).tolist() == ag.multinomial(
        ag.ones(5), 5, generator=g2).tolist()


# -- distributions ----------------------------------------------------------------------------------

@pytest.mark.parametrize("device", DEVICES)
def test_uniform_normal_exponential_moments(device):
    ag.manual_seed(0)
    x = ag.empty(N, dtype=ag.float64, device=device).uniform_(-1.0, 3.0)
    assert x.min().item() >= -1.0 and x.max().item() < 3.0
    m, v = _moments(x)
    _close(m, 1.0, math.sqrt(16 / 12))
    assert v == pytest.approx(16 / 12, rel=0.02)
    m, v = _moments(ag.empty(N, dtype=ag.float64, device=device).normal_(2.0, 0.5))
    _close(m, 2.0, 0.5)
    assert v == pytest.approx(0.25, rel=0.02)
    e = ag.empty(N, dtype=ag.float64, device=device).exponential_(4.0)
    assert e.min().item() >= 0.0
    m, v = _moments(e)
    _close(m, 0.25, 0.25)
    assert v == pytest.approx(1 / 16, rel=0.03)


@pytest.mark.parametrize("device", DEVICES)
def test_random_ranges(device):
    ag.manual_seed(1)
    r = ag.empty(N, dtype=ag.int64, device=device).random_(3, 7)
    assert r.dtype is ag.int64 and set(r.unique().tolist() if hasattr(r, "unique") else
                                       set(r.tolist())) == {3, 4, 5, 6}
    r = ag.empty(1000, device=device).random_(5)  # random_(to)
    assert set(r.tolist()) == {0.0, 1.0, 2.0, 3.0, 4.0}
    r = ag.empty(1000, device=device).random_()  # [0, 2**24] for float32
    assert r.min().item() >= 0 and r.max().item() <= 2 ** 24 and r.max().item() > 2 ** 20
    b = ag.empty(1000, dtype=ag.bool, device=device).random_()
    assert set(b.tolist()) == {False, True}


@pytest.mark.parametrize("device", DEVICES)
def test_bernoulli_rates_and_dtypes(device):
    ag.manual_seed(2)
    p = ag.tensor([0.0, 0.25, 1.0], dtype=ag.float64, device=device)
    draws = ag.bernoulli(p.expand(N, 3) if hasattr(p, "expand") else p)
    assert draws.dtype is ag.float64 and set(draws.flatten().tolist()) <= {0.0, 1.0}
    means = draws.mean(0).tolist()
    assert means[0] == 0.0 and means[2] == 1.0
    _close(means[1], 0.25, math.sqrt(0.25 * 0.75))
    x = ag.empty(N, dtype=ag.int64, device=device).bernoulli_(0.75)
    _close(x.to(ag.float64).mean().item(), 0.75, math.sqrt(0.75 * 0.25))
    t = ag.full((N,), 0.5, device=device).bernoulli(0.1)  # method with a number p
    _close(t.to(ag.float64).mean().item(), 0.1, 0.3)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("rate", [0.0, 0.3, 4.0, 9.99, 10.0, 37.5, 2500.0])
def test_poisson_mean_and_variance(device, rate):
    ag.manual_seed(3)
    x = ag.poisson(ag.full((N,), rate, dtype=ag.float64, device=device))
    assert x.dtype is ag.float64
    assert bool((x == x.floor()).all()) and x.min().item() >= 0
    m, v = _moments(x)
    if rate == 0.0:
        assert m == 0.0 and v == 0.0
        return
    _close(m, rate, math.sqrt(rate))
    assert v == pytest.approx(rate, rel=0.03)


def test_poisson_pmf_small_counts():
    ag.manual_seed(4)
    rate = 12.0  # the rejection sampler; compare P(X = k) for k near the mode
    x = ag.poisson(ag.full((N,), rate, dtype=ag.float64)).tolist()
    for k in (6, 10, 12, 16):
        p = math.exp(-rate + k * math.log(rate) - math.lgamma(k + 1))
        _close(sum(1 for v in x if v == k) / N, p, math.sqrt(p * (1 - p)))


@pytest.mark.parametrize("device", DEVICES)
def test_multinomial_with_replacement_frequencies(device):
    ag.manual_seed(5)
    w = ag.tensor([[1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 0.0, 2.0]], device=device)
    idx = ag.multinomial(w, N, replacement=True)
    assert idx.dtype is ag.int64 and tuple(idx.shape) == (2, N)
    row0 = idx.tolist()[0]
    for cat, p in ((0, 1 / 8), (1, 0.0), (2, 3 / 8), (3, 0.5)):
        _close(row0.count(cat) / N, p, math.sqrt(p * (1 - p)))
    assert set(idx.tolist()[1]) == {3}


@pytest.mark.parametrize("device", DEVICES)
def test_multinomial_without_replacement(device):
    ag.manual_seed(6)
    w = ag.tensor([1.0, 2.0, 0.0, 7.0], device=device)
    n = 20_000
    firsts, seconds = [], []
    for _ in range(4):
        s = ag.multinomial(w.expand(n // 4, 4) if hasattr(w, "expand") else w, 2)
        for a, b in s.tolist():
            assert a != b and 2 not in (a, b)
            firsts.append(a)
            seconds.append(b)
    # first draw: w / 10; second given first i: w_j / (10 - w_i)
    _close(firsts.count(3) / n, 0.7, math.sqrt(0.21), n)
    p_second_0 = 0.2 * 1 / 8 + 0.7 * 1 / 3
    _close(seconds.count(0) / n, p_second_0, math.sqrt(p_second_0 * (1 - p_second_0)), n)
    full = ag.multinomial(ag.tensor([1.0, 1.0, 1.0]), 3)
    assert sorted(full.tolist()) == [0, 1, 2]


@needs_torch
def test_multinomial_zero_weights_fill_in_index_order_as_pytorch():
    for w in ([1.0, 0.0, 0.0], [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]):
        ours = ag.multinomial(ag.tensor(w), 3).tolist()
        assert ours == torch.multinomial(torch.tensor(w), 3).tolist()


# -- normal's overloads and gradients ------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("args", [
    ("t", 1.0), ("t", "t"), (0.5, "t"), ("col", "row"),
])
def test_normal_overload_shapes_as_pytorch(args):
    def make(lib, a):
        return {"t": lib.ones(2, 3), "col": lib.zeros(2, 1), "row": lib.ones(3)}.get(a, a) \
            if isinstance(a, str) else a

    ours = ag.normal(*(make(ag, a) for a in args))
    theirs = torch.normal(*(make(torch, a) for a in args))
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype.name == "float32"


def test_normal_numbers_with_size():
    ag.manual_seed(7)
    x = ag.normal(3.0, 2.0, (N,), dtype=ag.float64)
    assert x.dtype is ag.float64
    m, v = _moments(x)
    _close(m, 3.0, 2.0)
    assert v == pytest.approx(4.0, rel=0.02)
    assert ag.normal(0.0, 1.0, size=(2,), requires_grad=True).requires_grad
    assert ag.normal(0.0, 1.0, (2,), device="strict").device == ag.device("strict")


def test_normal_gradients_and_double_backward():
    ag.manual_seed(8)
    mean = ag.tensor([0.5, -1.0, 2.0], dtype=ag.float64, requires_grad=True)
    std = ag.tensor([1.0, 2.0, 0.5], dtype=ag.float64, requires_grad=True)
    y = ag.normal(mean, std)
    (gm, gs) = ag.autograd.grad(y.sum(), (mean, std), create_graph=True)
    assert gm.tolist() == [1.0, 1.0, 1.0]
    eps = ((y - mean) / std).detach()
    assert gs.tolist() == pytest.approx(eps.tolist())
    # d/dstd of sum(std * eps)**2 / 2 twice: second derivative eps**2
    z = (y * y).sum() / 2
    (g,) = ag.autograd.grad(z, (std,), create_graph=True)
    (gg,) = ag.autograd.grad(g.sum(), (std,))
    assert gg.tolist() == pytest.approx((eps * eps).tolist())


def test_like_factories_honour_dtype_and_device():
    x = ag.zeros(2, 3, dtype=ag.float64)
    for fn in (ag.rand_like, ag.randn_like):
        assert fn(x).dtype is ag.float64
        assert fn(x, dtype=ag.float16).dtype is ag.float16
        assert fn(x, device="strict").device == ag.device("strict")
    r = ag.randint_like(x, 3, 9)
    assert r.dtype is ag.float64 and r.min().item() >= 3 and r.max().item() < 9
    assert ag.randint_like(x, 5, dtype=ag.int64).dtype is ag.int64
    assert ag.randint_like(x, 5, device="strict").device == ag.device("strict")


# -- errors: PyTorch's classes, nothing changed -------------------------------------------------------

_ERRORS = [
    ("uniform_ from > to", lambda lib: lib.zeros(3).uniform_(2, 1), RuntimeError),
    ("uniform_ on int", lambda lib: lib.zeros(3, dtype=lib.int64).uniform_(), NotImplementedError),
    ("normal_ std < 0", lambda lib: lib.zeros(3).normal_(0, -1), RuntimeError),
    ("normal_ on int", lambda lib: lib.zeros(3, dtype=lib.int64).normal_(), NotImplementedError),
    ("bernoulli_ p > 1", lambda lib: lib.zeros(3).bernoulli_(2.0), RuntimeError),
    ("exponential_ lambd < 0", lambda lib: lib.zeros(3).exponential_(-1.0), RuntimeError),
    ("random_ from >= to", lambda lib: lib.zeros(3).random_(5, 2), RuntimeError),
    ("multinomial too many", lambda lib: lib.multinomial(lib.ones(3), 4), RuntimeError),
    ("multinomial negative", lambda lib: lib.multinomial(lib.tensor([1.0, -1.0]), 1),
     RuntimeError),
    ("multinomial zero sum", lambda lib: lib.multinomial(lib.zeros(3), 1), RuntimeError),
    ("multinomial 3-d", lambda lib: lib.multinomial(lib.ones(2, 2, 2), 1), RuntimeError),
    ("poisson negative", lambda lib: lib.poisson(lib.tensor([-1.0])), RuntimeError),
    ("bernoulli p tensor > 1", lambda lib: lib.bernoulli(lib.tensor([2.0])), RuntimeError),
    ("normal negative std", lambda lib: lib.normal(lib.zeros(2), lib.tensor([1.0, -1.0])),
     RuntimeError),
]


@needs_torch
@pytest.mark.parametrize("label,call,error", _ERRORS, ids=[e[0] for e in _ERRORS])
def test_errors_as_pytorch(label, call, error):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error):
        call(ag)


def test_nothing_changes_on_error():
    x = ag.tensor([1.0, 2.0, 3.0])
    for bad in (lambda: x.uniform_(2, 1), lambda: x.normal_(0, -1), lambda: x.bernoulli_(1.5),
                lambda: x.exponential_(0.0), lambda: x.random_(3, 3),
                lambda: x.bernoulli_(ag.tensor([0.5, 2.0, 0.5]))):
        with pytest.raises(RuntimeError):
            bad()
        assert x.tolist() == [1.0, 2.0, 3.0] and x._version == 0


def test_inplace_fillers_on_parameters_follow_autograd_rules():
    w = ag.zeros(4, requires_grad=True)
    with pytest.raises(RuntimeError):
        w.uniform_(-1, 1)  # a leaf that requires grad, as PyTorch
    with ag.no_grad():
        assert w.normal_(0, 0.02) is w  # the nn.init pattern
    assert w.requires_grad and w.grad_fn is None and any(v != 0 for v in w.tolist())
