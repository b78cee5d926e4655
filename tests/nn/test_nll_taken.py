"""NLL's fast path (every target a class, none ignored) takes each row's entry at its flat
position instead of a one-hot pick over every class, and builds the one-hot rows of the
gradient only when a node or a tangent will read them (an evaluation under ``no_grad``
builds none). Values against the general path, PyTorch and the formula."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.nn._functional import loss as loss_module
from arraygrad.ops.rule import reference_mode


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 9), st.integers(1, 7), st.sampled_from(["mean", "sum", "none"]),
       st.sampled_from(["float32", "float64"]), st.sampled_from(["int64", "int32"]),
       st.integers(0, 2**31 - 1))
def test_taken_values_and_gradients_match_the_general_path(n, c, reduction, dtype, tdtype, seed):
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal((n, c)).astype(dtype)
    t0 = rng.integers(0, c, n).astype(tdtype)
    want_rows = -x0[np.arange(n), t0].astype(np.float64)
    x = ag.tensor(x0, requires_grad=True)
    got = F.nll_loss(x, ag.tensor(t0), reduction=reduction)
    with reference_mode():
        xr = ag.tensor(x0, requires_grad=True)
        want = F.nll_loss(xr, ag.tensor(t0), reduction=reduction)
    assert type(got.grad_fn).__name__ == "NllLossBackward0"
    # the two sum in different orders (the general path's over every class): a sum that
    # cancels differs by a few ulps of its terms, not of itself (n=8, c=6, seed=1471: 3e-6)
    tol = 4 * np.finfo(dtype).eps * max(1.0, float(np.abs(want_rows).sum()))
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=tol)
    formula = {"none": want_rows, "sum": want_rows.sum(), "mean": want_rows.mean()}[reduction]
    np.testing.assert_allclose(got.detach().numpy(), formula, rtol=1e-5, atol=1e-6)
    got.sum().backward()
    want.sum().backward()
    assert np.array_equal(x.grad.numpy(), xr.grad.numpy())


def test_other_classes_inf_or_nan_do_not_reach_the_loss():
    x = ag.tensor([[0.5, float("inf"), float("nan")], [float("-inf"), -1.5, 2.0]],
                  requires_grad=True)
    loss = F.nll_loss(x, ag.tensor([0, 1]))
    assert loss.item() == pytest.approx(0.5)
    loss.backward()
    assert x.grad.tolist() == [[-0.5, 0.0, 0.0], [0.0, -0.5, 0.0]]


@reference_mode(False)  # (the general path picks with the one-hot rows: it builds them)
def test_no_one_hot_is_built_where_nothing_reads_it(monkeypatch):
    built = []
    real = loss_module.dispatch_kernel

    def dispatch(name, *args):
        built.append(name)
        return real(name, *args)

    monkeypatch.setattr(loss_module, "dispatch_kernel", dispatch)
    x, t = ag.randn(6, 4), ag.randint(0, 4, (6,))
    F.cross_entropy(x, t)  # nothing requires grad
    with ag.no_grad():
        F.cross_entropy(x.requires_grad_(), t)
    assert built == []
    F.cross_entropy(x, t).backward()  # a node: the gradient's rows
    assert built == ["nll_class_rows"]


def test_forward_ad_through_the_taken_path():
    import arraygrad.autograd.forward_ad as fwAD

    x0, t = ag.randn(5, 3), ag.tensor([0, 2, 1, 1, 0])
    tangent = ag.randn(5, 3)
    with fwAD.dual_level():
        out = F.nll_loss(fwAD.make_dual(x0, tangent), t)
        jvp = fwAD.unpack_dual(out).tangent
    want = -tangent[ag.arange(5), t].mean()
    assert jvp.item() == pytest.approx(want.item(), rel=1e-6)


def test_out_of_range_and_ignored_targets_take_the_general_path():
    with pytest.raises(IndexError, match="Target 3 is out of bounds"):
        F.nll_loss(ag.randn(2, 3), ag.tensor([0, 3]))
    with pytest.raises(IndexError, match="Target -1 is out of bounds"):
        F.nll_loss(ag.randn(2, 3), ag.tensor([0, -1]))
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert F.nll_loss(x, ag.tensor([1, -100])).item() == -2.0


def test_cross_entropy_matches_pytorch_with_and_without_grad():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    for n, c in ((128, 32), (3, 50257 // 64), (1, 1)):
        x0 = rng.standard_normal((n, c)).astype(np.float32)
        t0 = rng.integers(0, c, n)
        for reduction in ("mean", "sum", "none"):
            x = ag.tensor(x0, requires_grad=True)
            tx = torch.tensor(x0, requires_grad=True)
            ours = F.cross_entropy(x, ag.tensor(t0), reduction=reduction)
            theirs = torch.nn.functional.cross_entropy(tx, torch.tensor(t0), reduction=reduction)
            np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(),
                                       rtol=1e-5, atol=1e-6)
            ours.sum().backward()
            theirs.sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-7)
            with ag.no_grad(), torch.no_grad():
                np.testing.assert_allclose(
                    F.cross_entropy(x, ag.tensor(t0), reduction=reduction).numpy(),
                    torch.nn.functional.cross_entropy(tx, torch.tensor(t0),
                                                      reduction=reduction).numpy(),
                    rtol=1e-5, atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 7), st.sampled_from(["mean", "sum", "none"]),
       st.sampled_from(["float32", "float64"]), st.sampled_from(["int64", "int32"]),
       st.integers(0, 2**31 - 1))
def test_the_numpy_kernel_gives_the_portable_values_bit_for_bit(n, c, reduction, dtype, tdtype,
                                                                 seed):
    from arraygrad_numpy.loss_kernels import nll_class_rows

    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, c)).astype(dtype)
    t = rng.integers(0, c, n).astype(tdtype)
    denom = n if reduction == "mean" else 1
    got = nll_class_rows(np, x, t, denom, reduction)
    want = loss_module._nll_class_rows(ag.tensor([1.0])._backend.xp, x, t, denom, reduction)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        assert g.tobytes() == w.tobytes()  # signed zeros included


def test_the_numpy_kernel_declines_half_precision():
    from arraygrad_numpy.loss_kernels import nll_class_rows

    x = np.zeros((2, 3), np.float16)
    assert nll_class_rows(np, x, np.array([0, 2]), 2, "mean") is NotImplemented
