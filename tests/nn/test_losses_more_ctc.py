"""F.ctc_loss and nn.CTCLoss: values and gradients against a brute force over every alignment
(tiny sizes), padded and concatenated targets, unbatched input, reductions, zero_infinity,
errors, and PyTorch itself where installed."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from nn_helpers import arr

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck
from arraygrad.nn import functional as F

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def log_softmax(x):
    m = x.max(-1, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(-1, keepdims=True))


def collapse(path, blank):
    out, prev = [], None
    for c in path:
        if c != prev and c != blank:
            out.append(c)
        prev = c
    return out


def brute_force(lp, target, length, blank):
    """-log P(target) over every alignment of the first ``length`` steps of ``lp`` (T, C), and
    PyTorch's gradient: the true one plus exp(lp) at t < length."""
    c = lp.shape[1]
    total, grad_num = 0.0, np.zeros_like(lp)
    for path in itertools.product(range(c), repeat=length):
        if collapse(path, blank) == list(target):
            p = math.exp(sum(lp[t, k] for t, k in enumerate(path)))
            total += p
            for t, k in enumerate(path):
                grad_num[t, k] += p
    nll = -math.log(total) if total > 0 else math.inf
    grad = np.zeros_like(lp)
    if total > 0:
        grad[:length] = np.exp(lp[:length]) - grad_num[:length] / total
    return nll, grad


RNG = np.random.default_rng(2)
T, N, C = 5, 3, 3
LP = log_softmax(RNG.standard_normal((T, N, C)))
TARGETS = [[1, 2], [2, 2], [1]]
IN_LENS = [5, 4, 3]


def padded():
    rows = [tg + [0] * (2 - len(tg)) for tg in TARGETS]
    return ag.tensor(rows)


def concatenated():
    return ag.tensor([v for tg in TARGETS for v in tg])


@pytest.mark.parametrize("targets", [padded, concatenated], ids=["padded", "concatenated"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_against_brute_force(targets, reduction):
    x = ag.tensor(LP, requires_grad=True)
    lens = [len(tg) for tg in TARGETS]
    out = F.ctc_loss(x, targets(), IN_LENS, lens, reduction=reduction)
    refs = [brute_force(LP[:, i], TARGETS[i], IN_LENS[i], 0) for i in range(N)]
    nll = np.array([r[0] for r in refs])
    scale = {"none": np.ones(N), "sum": np.ones(N), "mean": 1 / (N * np.array(lens))}[reduction]
    expect = {"none": nll, "sum": nll.sum(), "mean": (nll / lens).mean()}[reduction]
    np.testing.assert_allclose(arr(out), expect, rtol=1e-10)
    out.sum().backward()
    grad = np.stack([refs[i][1] * scale[i] for i in range(N)], axis=1)
    np.testing.assert_allclose(arr(x.grad), grad, rtol=1e-9, atol=1e-12)


def test_other_blank_unbatched_and_lengths_as_tensors():
    lp = LP[:, 0]
    out = F.ctc_loss(ag.tensor(lp), ag.tensor([0, 1]), ag.tensor(4), ag.tensor(2), blank=2,
                     reduction="none")
    assert out.shape == ()
    assert float(out) == pytest.approx(brute_force(lp, [0, 1], 4, 2)[0], rel=1e-10)
    batched = F.ctc_loss(ag.tensor(LP), padded(), ag.tensor(IN_LENS), ag.tensor([2, 2, 1]),
                         reduction="none")
    np.testing.assert_allclose(arr(batched), [brute_force(LP[:, i], TARGETS[i], IN_LENS[i], 0)[0]
                                              for i in range(N)], rtol=1e-10)


def test_empty_target_and_empty_input():
    out = F.ctc_loss(ag.tensor(LP), ag.tensor([[1], [1], [1]]), [5, 0, 3], [0, 0, 1],
                     reduction="none")
    expect0 = -LP[:5, 0, 0].sum()  # all blanks
    np.testing.assert_allclose(arr(out)[:2], [expect0, 0.0], rtol=1e-12)


def test_impossible_alignment_and_zero_infinity():
    x = ag.tensor(LP, requires_grad=True)
    # 'aa' needs a blank between the two labels: 3 steps; 2 are too few
    out = F.ctc_loss(x, ag.tensor([[1, 1]] * 3), [2, 5, 5], [2, 2, 2], reduction="none")
    assert math.isinf(arr(out)[0]) and math.isfinite(arr(out)[1])
    x2 = ag.tensor(LP, requires_grad=True)
    out = F.ctc_loss(x2, ag.tensor([[1, 1]] * 3), [2, 5, 5], [2, 2, 2], reduction="sum",
                     zero_infinity=True)
    assert math.isfinite(float(out))
    out.backward()
    g = arr(x2.grad)
    assert not g[:, 0].any() and np.isfinite(g).all() and g[:, 1].any()


def test_gradcheck_through_log_softmax():
    # PyTorch's gradient assumes normalised log-probabilities: through log_softmax it is exact
    logits = ag.tensor(RNG.standard_normal((4, 2, 3)), requires_grad=True)
    fn = lambda z: F.ctc_loss(z.log_softmax(2), ag.tensor([[1, 2], [1, 1]]),  # noqa: E731
                              [4, 3], [2, 1])
    assert gradcheck(fn, (logits,))


def test_double_backward_raises_as_pytorch():
    x = ag.tensor(LP, requires_grad=True)
    loss = F.ctc_loss(x, padded(), IN_LENS, [2, 2, 1])
    (g,) = ag.autograd.grad(loss, x, create_graph=True)
    with pytest.raises(RuntimeError, match="not implemented"):
        g.sum().backward()


ERRORS = [
    (dict(input_lengths=[6, 5, 5]), "at most 5"),
    (dict(input_lengths=[5, 5]), "input_lengths must be of size batch_size"),
    (dict(target_lengths=[2, 2]), "target_lengths must be of size batch_size"),
    (dict(target_lengths=[3, 2, 1]), "size at least 3"),
    (dict(target_lengths=[-1, 2, 1]), "at least 0"),
    (dict(blank=3), "blank must be in label range"),
    (dict(reduction="avg"), "not a valid value for reduction"),
]


@pytest.mark.parametrize("kw, match", ERRORS)
def test_errors(kw, match):
    args = dict(input_lengths=[5, 5, 5], target_lengths=[2, 2, 1])
    args.update(kw)
    cls = ValueError if "reduction" in kw else RuntimeError
    with pytest.raises(cls, match=match):
        F.ctc_loss(ag.tensor(LP), padded(), **args)
    with pytest.raises(RuntimeError, match="Expected tensor to have size 4"):
        F.ctc_loss(ag.tensor(LP), ag.tensor([1, 2, 1]), [5, 5, 5], [2, 1, 1])


def test_module():
    loss = nn.CTCLoss(blank=0, reduction="sum", zero_infinity=True)
    assert repr(loss) == "CTCLoss()"
    np.testing.assert_allclose(
        arr(loss(ag.tensor(LP), padded(), IN_LENS, [2, 2, 1])),
        arr(F.ctc_loss(ag.tensor(LP), padded(), IN_LENS, [2, 2, 1], reduction="sum")))


@needs_torch
@settings(max_examples=25, deadline=None)
@given(t_max=st.integers(1, 8), n=st.integers(1, 3), c=st.integers(2, 5),
       reduction=st.sampled_from(["none", "mean", "sum"]), zero_inf=st.booleans(),
       concat=st.booleans(), raw=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_against_torch(t_max, n, c, reduction, zero_inf, concat, raw, seed):
    r = np.random.default_rng(seed)
    x = r.standard_normal((t_max, n, c))
    lp = x if raw else log_softmax(x)  # raw: PyTorch's formula on unnormalised input too
    blank = int(r.integers(0, c))
    labels = [v for v in range(c) if v != blank]
    in_lens = [int(r.integers(0, t_max + 1)) for _ in range(n)]
    tg_lens = [int(r.integers(0, 4)) for _ in range(n)]
    rows = [[int(r.choice(labels)) for _ in range(k)] for k in tg_lens]
    if concat:
        targets = [v for row in rows for v in row]
    else:
        width = max(tg_lens)
        targets = [row + [labels[0]] * (width - len(row)) for row in rows]
    tx = torch.tensor(lp, requires_grad=True)
    ax = ag.tensor(lp, requires_grad=True)
    tout = torch.nn.functional.ctc_loss(tx, torch.tensor(targets, dtype=torch.long), in_lens,
                                        tg_lens, blank, reduction, zero_inf)
    aout = F.ctc_loss(ax, ag.tensor(targets, dtype=ag.int64), in_lens, tg_lens, blank,
                      reduction, zero_inf)
    np.testing.assert_allclose(arr(aout), tout.detach().numpy(), rtol=1e-9, atol=1e-12)
    if np.isfinite(tout.detach().numpy()).all():
        g = r.standard_normal(tuple(tout.shape))
        tout.backward(torch.tensor(g))
        aout.backward(ag.tensor(g))
        np.testing.assert_allclose(arr(ax.grad), tx.grad.numpy(), rtol=1e-8, atol=1e-10)


@needs_torch
def test_float32_against_torch():
    lp = LP.astype(np.float32)
    tx = torch.tensor(lp, requires_grad=True)
    ax = ag.tensor(lp, requires_grad=True)
    tout = torch.nn.functional.ctc_loss(tx, torch.tensor([[1, 2], [2, 2], [1, 0]]), IN_LENS,
                                        [2, 2, 1])
    aout = F.ctc_loss(ax, padded(), IN_LENS, [2, 2, 1])
    assert aout.dtype == ag.float32
    np.testing.assert_allclose(arr(aout), tout.item(), rtol=1e-5)
    tout.backward()
    aout.backward()
    np.testing.assert_allclose(arr(ax.grad), tx.grad.numpy(), rtol=1e-4, atol=1e-6)
