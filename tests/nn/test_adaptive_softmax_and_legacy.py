"""``AdaptiveLogSoftmaxWithLoss``, ``CrossMapLRN2d``, ``NLLLoss2d`` and ``Container``, against
PyTorch where installed."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck


def _copy_into(mine, theirs):
    mine.load_state_dict({k: ag.tensor(v.detach().numpy()) for k, v in theirs.state_dict().items()})


def test_adaptive_log_softmax_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    torch.manual_seed(0)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], div_value=2.0,
                                                 head_bias=True).double()
    mine = nn.AdaptiveLogSoftmaxWithLoss(8, 20, [4, 10, 15], div_value=2.0,
                                         head_bias=True).double()
    _copy_into(mine, theirs)
    x = torch.randn(6, 8, dtype=torch.float64, requires_grad=True)
    target = torch.tensor([0, 5, 12, 19, 3, 11])
    xa = ag.tensor(x.detach().numpy(), requires_grad=True)
    expected, got = theirs(x, target), mine(xa, ag.tensor(target.numpy()))
    np.testing.assert_allclose(got.output.detach().numpy(), expected.output.detach().numpy(),
                               atol=1e-12)
    expected.loss.backward()
    got.loss.backward()
    np.testing.assert_allclose(xa.grad.numpy(), x.grad.numpy(), atol=1e-12)
    np.testing.assert_allclose(mine.log_prob(xa).detach().numpy(),
                               theirs.log_prob(x).detach().numpy(), atol=1e-12)
    assert mine.predict(xa).tolist() == theirs.predict(x).tolist()
    single = mine(xa[0], ag.tensor(11))
    assert single.output.ndim == 0


def test_adaptive_log_softmax_checks():
    with pytest.raises(ValueError, match="cutoffs should be a sequence of unique"):
        nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5, 3])
    m = nn.AdaptiveLogSoftmaxWithLoss(4, 10, [5])
    with pytest.raises(RuntimeError, match=r"Target values should be in \[0, 9\]"):
        m(ag.randn(2, 4), ag.tensor([1, 10]))
    assert ag.allclose(m.log_prob(ag.randn(3, 4)).exp().sum(1), ag.ones(3))


@pytest.mark.parametrize("channels, size", [(7, 5), (3, 5), (8, 3), (10, 4)])
def test_cross_map_lrn2d_values_are_pytorchs(channels, size):
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    x = torch.randn(2, channels, 3, 2, dtype=torch.float64)
    expected = torch.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)(x)
    got = nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)(ag.tensor(x.numpy()))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), atol=1e-13)


def test_cross_map_lrn2d_gradient_is_its_derivative():
    m = nn.CrossMapLRN2d(3, alpha=0.5, beta=0.75, k=1.5)
    x = ag.randn(1, 5, 2, 2, dtype=ag.float64, requires_grad=True)
    assert gradcheck(m, (x,))
    with pytest.raises(ValueError, match="Expected input to be 4D"):
        m(ag.randn(5, 2, 2))
    assert repr(m) == "CrossMapLRN2d(3, alpha=0.5, beta=0.75, k=1.5)"


def test_nll_loss_2d_is_nll_loss():
    x = ag.randn(2, 3, 4, 4).log_softmax(1)
    t = ag.randint(0, 3, (2, 4, 4))
    assert ag.equal(nn.NLLLoss2d()(x, t), nn.NLLLoss()(x, t))


def test_container_warns_and_holds_modules():
    with pytest.warns(FutureWarning, match="nn.Container` is deprecated"):
        c = nn.Container(a=nn.Linear(2, 2), b=nn.ReLU())
    assert list(dict(c.named_children())) == ["a", "b"]
