"""F.embedding_bag and nn.EmbeddingBag: bags by offsets (with and without the last offset),
2-D input, sum/mean/max, per_sample_weights, padding_idx, empty bags, max_norm, errors,
from_pretrained; hand-computed references, gradcheck, and PyTorch where installed."""

import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st
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

W = np.arange(14.0).reshape(7, 2) * np.array([1.0, -0.5])
IDX = [1, 2, 5, 3, 4, 6, 0, 2]


def w64(grad=False):
    return ag.tensor(W, requires_grad=grad)


def ref(bags, mode, pad=None, psw=None):
    out = []
    for members in bags:
        rows = [(W[i] * (1.0 if psw is None else psw[k])) for k, i in members if i != pad]
        if not rows:
            out.append(np.zeros(2))
        elif mode == "sum":
            out.append(np.sum(rows, 0))
        elif mode == "mean":
            out.append(np.mean(rows, 0))
        else:
            out.append(np.max(rows, 0))
    return np.array(out)


def members(offsets, n, last=False):
    ends = offsets[1:] if last else offsets[1:] + [n]
    starts = offsets[:-1] if last else offsets
    return [[(k, IDX[k]) for k in range(a, b)] for a, b in zip(starts, ends)]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("pad", [None, 2])
@pytest.mark.parametrize("offsets, last", [([0, 3, 3, 5], False), ([0, 2, 5, 8], True),
                                           ([0], False), ([0, 0], False)])
def test_values(mode, pad, offsets, last):
    out = F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor(offsets), mode=mode, padding_idx=pad,
                          include_last_offset=last)
    np.testing.assert_allclose(arr(out), ref(members(offsets, len(IDX), last), mode, pad))


def test_2d_input_and_per_sample_weights():
    idx = np.array(IDX).reshape(2, 4)
    out = F.embedding_bag(ag.tensor(idx), w64(), mode="mean")
    np.testing.assert_allclose(arr(out), [W[idx[0]].mean(0), W[idx[1]].mean(0)])
    psw = np.linspace(-1, 1, 8)
    out = F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor([0, 3]), mode="sum",
                          per_sample_weights=ag.tensor(psw), padding_idx=2)
    np.testing.assert_allclose(arr(out), ref(members([0, 3], 8), "sum", 2, psw))


def test_gradients():
    # sum: each row's gradient counts its (non-padding) uses; mean: 1 / bag size; max: the
    # first maximal row per feature
    w = w64(grad=True)
    F.embedding_bag(ag.tensor(IDX), w, ag.tensor([0, 3]), mode="mean",
                    padding_idx=2).sum().backward()
    expect = np.zeros((7, 2))
    for k, i in enumerate(IDX):  # bag sizes without the padding entries: 2 and 4
        if i != 2:
            expect[i] += 1 / (2 if k < 3 else 4)
    np.testing.assert_allclose(arr(w.grad), expect)
    w = ag.tensor([[1.0, 5.0], [3.0, 5.0], [3.0, 0.0]], requires_grad=True)
    F.embedding_bag(ag.tensor([0, 1, 2]), w, ag.tensor([0]), mode="max").sum().backward()
    np.testing.assert_allclose(arr(w.grad), [[0, 1], [1, 0], [0, 0]])
    psw = ag.tensor(np.linspace(-1, 1, 8), requires_grad=True)
    wt = w64(grad=True)
    fn = lambda w_, p_: F.embedding_bag(ag.tensor(IDX), w_, ag.tensor([0, 3, 3]),  # noqa: E731
                                        mode="sum", per_sample_weights=p_)
    assert gradcheck(fn, (wt, psw))
    assert gradgradcheck(fn, (wt, psw))
    for mode in ("mean", "max"):
        assert gradcheck(lambda w_: F.embedding_bag(ag.tensor(IDX), w_, ag.tensor([0, 3]),
                                                    mode=mode), (wt,))


def test_all_bags_empty_still_has_a_gradient():
    w = w64(grad=True)
    out = F.embedding_bag(ag.tensor([], dtype=ag.int64), w, ag.tensor([0, 0]))
    assert out.shape == (2, 2) and not arr(out).any()
    out.sum().backward()
    assert not arr(w.grad).any()
    psw = ag.ones(2, dtype=ag.float64, requires_grad=True)  # every entry is padding
    F.embedding_bag(ag.tensor([3, 3]), w64(), ag.tensor([0]), mode="sum", padding_idx=3,
                    per_sample_weights=psw).sum().backward()
    assert arr(psw.grad).tolist() == [0.0, 0.0]
    empty = ag.ones(0, dtype=ag.float64, requires_grad=True)
    F.embedding_bag(ag.tensor([], dtype=ag.int64), w64(), ag.tensor([0]), mode="sum",
                    per_sample_weights=empty).sum().backward()
    assert empty.grad is not None and empty.grad.shape == (0,)


def test_max_norm_renormalises_each_used_row_once():
    w = ag.tensor(W.copy())
    F.embedding_bag(ag.tensor([6, 6, 1]), w, ag.tensor([0]), max_norm=1.0)
    norms = np.linalg.norm(arr(w), axis=1)
    np.testing.assert_allclose(norms[[1, 6]], 1.0, rtol=1e-6)  # renormalised once, not twice
    np.testing.assert_allclose(arr(w)[[0, 2]], W[[0, 2]])  # unused rows untouched


ERRORS = [
    (lambda: F.embedding_bag(ag.tensor(IDX), w64()), ValueError, "offsets has to be a 1D"),
    (lambda: F.embedding_bag(ag.tensor([IDX]), w64(), ag.tensor([0])), ValueError,
     "if input is 2D"),
    (lambda: F.embedding_bag(ag.tensor([[IDX]]), w64()), ValueError, "1D or 2D"),
    (lambda: F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor([0]), mode="min"), ValueError,
     "mode has to be one of"),
    (lambda: F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor([0]), mode="max",
                             scale_grad_by_freq=True), ValueError, "max mode does not support"),
    (lambda: F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor([0]), mode="mean",
                             per_sample_weights=ag.ones(8, dtype=ag.float64)),
     NotImplementedError, "only supported for mode='sum'"),
    (lambda: F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor([0]), mode="sum",
                             per_sample_weights=ag.ones(3, dtype=ag.float64)), ValueError,
     "same shape as the input"),
    (lambda: F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor([1])), RuntimeError,
     "offsets\\[0\\] has to be 0"),
    (lambda: F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor([0, 9])), RuntimeError,
     "offsets\\[-1\\] can not be greater"),
    (lambda: F.embedding_bag(ag.tensor([1, 9]), w64(), ag.tensor([0])), RuntimeError,
     "not in the valid range"),
    (lambda: F.embedding_bag(ag.tensor([1.0, 2.0]), w64()[0], ag.tensor([0])), ValueError,
     "weight has to be a 2D"),
    (lambda: F.embedding_bag(ag.tensor(IDX), w64(), ag.tensor([0]), padding_idx=7),
     RuntimeError, "padding_idx must be within"),
    (lambda: nn.EmbeddingBag(5, 2, padding_idx=5), AssertionError, "padding_idx"),
    (lambda: nn.EmbeddingBag.from_pretrained(ag.ones(3)), AssertionError, "2-dimensional"),
]


@pytest.mark.parametrize("fn, cls, match", ERRORS)
def test_errors(fn, cls, match):
    with pytest.raises(cls, match=match):
        fn()


def test_module():
    ag.manual_seed(0)
    bag = nn.EmbeddingBag(7, 2, mode="sum", padding_idx=-1)
    assert bag.padding_idx == 6 and not arr(bag.weight)[6].any()
    assert repr(bag) == "EmbeddingBag(7, 2, mode='sum', padding_idx=6)"
    assert list(bag.state_dict()) == ["weight"]
    pre = nn.EmbeddingBag.from_pretrained(w64(), mode="max", include_last_offset=True)
    assert not pre.weight.requires_grad
    out = pre(ag.tensor(IDX), ag.tensor([0, 2, 5, 8]))
    np.testing.assert_allclose(arr(out), ref(members([0, 2, 5, 8], 8, True), "max"))
    assert nn.EmbeddingBag.from_pretrained(w64(), freeze=False).weight.requires_grad


@needs_torch
@settings(max_examples=25, deadline=None)
@given(mode=st.sampled_from(["sum", "mean", "max"]), n=st.integers(0, 9),
       cuts=st.lists(st.integers(0, 9), max_size=4), last=st.booleans(),
       pad=st.sampled_from([None, 0, 3, -2]), weighted=st.booleans(),
       seed=st.integers(0, 2 ** 16))
@example(mode="sum", n=0, cuts=[], last=False, pad=None, weighted=True, seed=0)  # no entries
def test_against_torch(mode, n, cuts, last, pad, weighted, seed):
    r = np.random.default_rng(seed)
    w = r.standard_normal((6, 3))
    idx = r.integers(0, 6, n)
    offsets = [0] + sorted(min(c, n) for c in cuts) + ([n] if last else [])
    psw = r.standard_normal(n) if weighted and mode == "sum" else None
    tw = torch.tensor(w, requires_grad=True)
    aw = ag.tensor(w, requires_grad=True)
    tp = None if psw is None else torch.tensor(psw, requires_grad=True)
    ap = None if psw is None else ag.tensor(psw, requires_grad=True)
    tout = torch.nn.functional.embedding_bag(torch.tensor(idx), tw, torch.tensor(offsets),
                                             mode=mode, per_sample_weights=tp,
                                             include_last_offset=last, padding_idx=pad)
    aout = F.embedding_bag(ag.tensor(idx, dtype=ag.int64), aw, ag.tensor(offsets), mode=mode,
                           per_sample_weights=ap, include_last_offset=last, padding_idx=pad)
    np.testing.assert_allclose(arr(aout), tout.detach().numpy(), rtol=1e-12)
    seed_grad = r.standard_normal(tuple(tout.shape))
    tout.backward(torch.tensor(seed_grad))
    aout.backward(ag.tensor(seed_grad))
    np.testing.assert_allclose(arr(aw.grad), tw.grad.numpy(), rtol=1e-12, atol=1e-14)
    if psw is not None:
        np.testing.assert_allclose(arr(ap.grad), tp.grad.numpy(), rtol=1e-12, atol=1e-14)


@needs_torch
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_module_loads_a_torch_state_dict(mode):
    theirs = torch.nn.EmbeddingBag(7, 3, mode=mode, padding_idx=1).double()
    ours = nn.EmbeddingBag(7, 3, mode=mode, padding_idx=1, dtype=ag.float64)
    ours.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert repr(ours) == repr(theirs)
    idx = [[1, 2, 3], [6, 1, 1]]
    np.testing.assert_allclose(arr(ours(ag.tensor(idx))),
                               theirs(torch.tensor(idx)).detach().numpy(), rtol=1e-12)
