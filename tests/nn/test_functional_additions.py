"""``nn.functional`` additions: ``gumbel_softmax``, ``pdist``, ``conv_tbc``, ``grouped_mm``,
``l1_loss``/``mse_loss`` ``weight=``, and the TorchScript-era helpers."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck

F = nn.functional


def test_gumbel_softmax_soft_and_hard():
    logits = ag.randn(5, 4, dtype=ag.float64, requires_grad=True)
    soft = F.gumbel_softmax(logits, tau=0.5)
    assert ag.allclose(soft.sum(-1), ag.ones(5, dtype=ag.float64))
    hard = F.gumbel_softmax(logits, hard=True, dim=1)
    assert ag.equal(hard.detach().sum(1), ag.ones(5, dtype=ag.float64))
    assert set(hard.detach().reshape(-1).tolist()) <= {0.0, 1.0}
    hard.sum().backward()  # straight-through: the soft sample's gradient
    assert logits.grad is not None
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        F.gumbel_softmax(logits, eps=1e-5)


def test_gumbel_softmax_draws_follow_the_categorical():
    ag.manual_seed(0)
    logits = ag.tensor([0.0, 1.0, 2.0]).log_softmax(0).expand(4000, 3)
    counts = F.gumbel_softmax(logits, hard=True).sum(0) / 4000
    assert ag.allclose(counts, logits[0].exp(), atol=0.03)


def test_pdist_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    x = torch.randn(5, 3, dtype=torch.float64)
    x[3] = x[1]  # a zero distance: zero gradient there, as PyTorch
    x.requires_grad_(True)
    xa = ag.tensor(x.detach().numpy(), requires_grad=True)
    for p in (0, 1, 2, 3.5, float("inf")):
        expected, got = torch.pdist(x, p), F.pdist(xa, p)
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-12)
        g = torch.randn_like(expected)
        (gx,) = torch.autograd.grad(expected, x, g)
        (gxa,) = ag.autograd.grad(got, xa, ag.tensor(g.numpy()))
        np.testing.assert_allclose(gxa.numpy(), gx.numpy(), atol=1e-12)


def test_pdist_checks_and_gradcheck():
    x = ag.randn(4, 3, dtype=ag.float64, requires_grad=True)
    assert gradcheck(lambda t: F.pdist(t, 2), (x,))
    assert tuple(F.pdist(ag.randn(1, 3)).shape) == (0,)
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 3D"):
        F.pdist(ag.randn(2, 3, 4))
    with pytest.raises(RuntimeError, match="non-negative p"):
        F.pdist(ag.randn(3, 2), -1)


def test_conv_tbc_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    x = torch.randn(7, 2, 3, dtype=torch.float64, requires_grad=True)
    w = torch.randn(3, 3, 5, dtype=torch.float64)
    b = torch.randn(5, dtype=torch.float64)
    expected = torch.conv_tbc(x, w, b, 1)
    xa = ag.tensor(x.detach().numpy(), requires_grad=True)
    got = F.conv_tbc(xa, ag.tensor(w.numpy()), ag.tensor(b.numpy()), 1)
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-12)
    with pytest.raises(RuntimeError, match="Bias size must equal dim 2"):
        F.conv_tbc(xa, ag.tensor(w.numpy()), ag.zeros(3, dtype=ag.float64))


def test_grouped_mm_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    offs = torch.tensor([4, 8, 12], dtype=torch.int32)
    offs_a = ag.tensor(offs.numpy())
    cases = [((3, 8, 8), (3, 8, 8), None), ((16, 8), (3, 8, 8), offs),
             ((3, 8, 8), (8, 16), offs), ((8, 16), (16, 8), offs)]
    for sa, sb, o in cases:
        a, b = torch.randn(*sa), torch.randn(*sb)
        expected = torch.nn.functional.grouped_mm(a, b, offs=o)
        got = F.grouped_mm(ag.tensor(a.numpy()), ag.tensor(b.numpy()),
                           offs=None if o is None else offs_a)
        valid = [slice(None)] * expected.ndim
        if len(sa) != len(sb):  # past offs[-1] PyTorch leaves memory uninitialised
            valid[0 if len(sa) == 2 else 1] = slice(0, 12)
        np.testing.assert_allclose(got.numpy()[tuple(valid)], expected.numpy()[tuple(valid)],
                                   atol=1e-5)


def test_grouped_mm_gradient_and_errors():
    a = ag.randn(6, 3, dtype=ag.float64, requires_grad=True)
    b = ag.randn(2, 3, 4, dtype=ag.float64, requires_grad=True)
    offs = ag.tensor([2, 6], dtype=ag.int32)
    assert gradcheck(lambda x, y: F.grouped_mm(x, y, offs=offs), (a, b))
    with pytest.raises(RuntimeError, match="Have to provide offsets"):
        F.grouped_mm(a, b)
    with pytest.raises(RuntimeError, match="Offsets have to be int32"):
        F.grouped_mm(a, b, offs=offs.long())
    with pytest.raises(RuntimeError, match="Bias not supported yet"):
        F.grouped_mm(a, b, offs=offs, bias=ag.ones(4, dtype=ag.float64))


@pytest.mark.parametrize("loss", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_weighted_regression_losses_match_pytorch(loss, reduction):
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
    y, w = torch.randn(3, 4, dtype=torch.float64), torch.rand(3, 4, dtype=torch.float64)
    expected = getattr(torch.nn.functional, loss)(x, y, reduction=reduction, weight=w)
    xa = ag.tensor(x.detach().numpy(), requires_grad=True)
    got = getattr(F, loss)(xa, ag.tensor(y.numpy()), reduction=reduction,
                           weight=ag.tensor(w.numpy()))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-12)
    expected.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), x.grad.numpy(), atol=1e-12)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        getattr(F, loss)(xa, ag.tensor(y.numpy()), weight=ag.ones(4, dtype=ag.float64))


def test_script_helpers():
    assert F.BroadcastingList2[int] is None
    assert F.GRID_SAMPLE_PADDING_MODES["reflection"] == 2
    assert F.Tensor is ag.Tensor
    assert "tf32_note" in F.tf32_notes and "cudnn_reproducibility_note" in F.reproducibility_notes
    with pytest.raises(AssertionError, match="kernel_size must be"):
        F.assert_int_or_pair((1, 2, 3), "kernel_size", "{} must be an int or a pair")

    def with_indices(x, flag=False):
        """Doc."""
        return "indices"

    def without(x, flag=False):
        return "plain"

    fn = F.boolean_dispatch("flag", 1, False, with_indices, without, None, "picked")
    assert fn(1) == "plain" and fn(1, True) == "indices" and fn(1, flag=True) == "indices"
    assert fn.__name__ == "picked" and fn.__doc__ == "Doc."
