"""``F.linear_cross_entropy``, ``nn.LinearCrossEntropyLoss`` and ``LinearCrossEntropyOptions``,
against PyTorch where installed."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck

F = nn.functional


@pytest.mark.parametrize("kwargs", [{}, {"out_features": (2, 3), "bias": True},
                                    {"bias": True, "label_smoothing": 0.1, "reduction": "sum"},
                                    {"ignore_index": 1, "reduction": "none"}])
def test_module_matches_pytorch(kwargs):
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    theirs = torch.nn.LinearCrossEntropyLoss(5, 4, **kwargs).double()
    mine = nn.LinearCrossEntropyLoss(5, 4, **kwargs).double()
    mine.load_state_dict({k: ag.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    target = torch.randint(0, 4, (3,) + kwargs.get("out_features", ()))
    xa = ag.tensor(x.detach().numpy(), requires_grad=True)
    expected, got = theirs(x, target), mine(xa, ag.tensor(target.numpy()))
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), atol=1e-12)
    expected.sum().backward()
    got.sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), x.grad.numpy(), atol=1e-12)
    assert repr(mine) == repr(theirs)


def test_probability_targets_and_gradcheck():
    x = ag.randn(3, 4, dtype=ag.float64, requires_grad=True)
    w = ag.randn(5, 4, dtype=ag.float64, requires_grad=True)
    p = ag.randn(3, 5, dtype=ag.float64).softmax(1)
    assert gradcheck(lambda a, b: F.linear_cross_entropy(a, b, p), (x, w))
    with pytest.raises(RuntimeError, match="ignore_index cannot be specified"):
        F.linear_cross_entropy(x, w, p, ignore_index=0)


def test_options_are_checked_and_give_the_reference_values():
    x, w, t = ag.randn(6, 4), ag.randn(5, 4), ag.randint(0, 5, (6,))
    options = nn.LinearCrossEntropyOptions(batch_chunk_size=2)
    assert ag.allclose(F.linear_cross_entropy(x, w, t, options=options),
                       F.linear_cross_entropy(x, w, t))
    with pytest.raises(ValueError, match="invalid acc_policy"):
        nn.LinearCrossEntropyOptions(acc_policy="fast")
    with pytest.raises(ValueError, match="invalid chunking_method"):
        nn.LinearCrossEntropyOptions(chunking_method="rows")
    with pytest.raises(ValueError, match="batch_chunk_size must be positive"):
        nn.LinearCrossEntropyOptions(batch_chunk_size=0)
    with pytest.warns(UserWarning, match="options`` ignored"):
        F.linear_cross_entropy(x, w, t, options=options, label_smoothing=0.1)


def test_shape_checks():
    with pytest.raises(RuntimeError, match="expected input with dimensionality 1 or 2"):
        F.linear_cross_entropy(ag.randn(2, 3, 4), ag.randn(5, 4), ag.zeros(2, 3))
    with pytest.raises(RuntimeError, match="expected equal input and linear_weight last"):
        F.linear_cross_entropy(ag.randn(2, 3), ag.randn(5, 4), ag.zeros(2))
    with pytest.raises(RuntimeError, match="requires batched input"):
        F.linear_cross_entropy(ag.randn(4), ag.randn(5, 2, 4), ag.zeros(2))
