"""Second derivatives (gradgradcheck, float64) of every differentiable nn.functional op."""

import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn import functional as F


def _x(*shape, low=-1.0, high=1.0, seed=0):
    ag.manual_seed(seed)
    return (ag.rand(*shape, dtype=ag.float64) * (high - low) + low).requires_grad_()


def _away_from_zero(*shape, seed=0):
    x = _x(*shape, seed=seed).detach()
    return (x.sign() * (x.abs() + 0.2)).requires_grad_()


TARGET = ag.tensor([1, 0, 2, 1])
CASES = {
    "relu": (lambda x: F.relu(x), lambda: (_away_from_zero(3, 4),)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.1), lambda: (_away_from_zero(3, 4),)),
    "gelu": (lambda x: F.gelu(x), lambda: (_x(3, 4),)),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), lambda: (_x(3, 4),)),
    "silu": (lambda x: F.silu(x), lambda: (_x(3, 4),)),
    "elu": (lambda x: F.elu(x), lambda: (_away_from_zero(3, 4),)),
    "softplus": (lambda x: F.softplus(x, beta=2.0), lambda: (_x(3, 4),)),
    "sigmoid": (lambda x: F.sigmoid(x), lambda: (_x(3, 4),)),
    "tanh": (lambda x: F.tanh(x), lambda: (_x(3, 4),)),
    "softmax": (lambda x: F.softmax(x, dim=1), lambda: (_x(3, 4),)),
    "log_softmax": (lambda x: F.log_softmax(x, dim=1), lambda: (_x(3, 4),)),
    "logsigmoid": (lambda x: F.logsigmoid(x), lambda: (_x(3, 4),)),
    "linear": (lambda x, w, b: F.linear(x, w, b), lambda: (_x(3, 4), _x(2, 4, seed=1),
                                                            _x(2, seed=2))),
    "linear_3d": (lambda x, w: F.linear(x, w), lambda: (_x(2, 3, 4), _x(2, 4, seed=1))),
    "bilinear": (lambda a, b, w: F.bilinear(a, b, w), lambda: (_x(2, 3), _x(2, 4, seed=1),
                                                                _x(2, 3, 4, seed=2))),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b),
                   lambda: (_x(3, 4), _x(4, seed=1), _x(4, seed=2))),
    "group_norm": (lambda x: F.group_norm(x, 2), lambda: (_x(2, 4, 3),)),
    "batch_norm": (lambda x: F.batch_norm(x, None, None, training=True),
                   lambda: (_x(4, 3),)),
    "embedding": (lambda w: F.embedding(ag.tensor([[0, 2], [1, 0]]), w), lambda: (_x(3, 2),)),
    "pad": (lambda x: F.pad(x, (1, 2)), lambda: (_x(2, 3),)),
    "mse_loss": (lambda x, y: F.mse_loss(x, y), lambda: (_x(3, 4), _x(3, 4, seed=1))),
    "l1_loss": (lambda x: F.l1_loss(x, ag.zeros(3, 4, dtype=ag.float64)),
                lambda: (_away_from_zero(3, 4),)),
    "smooth_l1_loss": (lambda x: F.smooth_l1_loss(x, ag.zeros(3, 4, dtype=ag.float64), beta=0.5),
                       lambda: (_away_from_zero(3, 4),)),
    "huber_loss": (lambda x: F.huber_loss(x, ag.zeros(3, 4, dtype=ag.float64), delta=0.5),
                   lambda: (_away_from_zero(3, 4),)),
    "cross_entropy": (lambda x: F.cross_entropy(x, TARGET), lambda: (_x(4, 3),)),
    "cross_entropy_smooth_ignore": (
        lambda x: F.cross_entropy(x, TARGET, ignore_index=2, label_smoothing=0.1),
        lambda: (_x(4, 3),)),
    "cross_entropy_probs": (lambda x, p: F.cross_entropy(x, p.softmax(1)),
                            lambda: (_x(4, 3), _x(4, 3, seed=1))),
    "nll_loss": (lambda x: F.nll_loss(x.log_softmax(1), TARGET), lambda: (_x(4, 3),)),
    "nll_loss_ignore_none": (lambda x: F.nll_loss(x, TARGET, ignore_index=1, reduction="none"),
                             lambda: (_x(4, 3),)),
    "cross_entropy_ignore_sum": (lambda x: F.cross_entropy(x, TARGET, ignore_index=0,
                                                           reduction="sum"), lambda: (_x(4, 3),)),
    "binary_cross_entropy": (lambda p: F.binary_cross_entropy(p, ag.tensor(
        [[0., 1.], [1., 0.]], dtype=ag.float64)), lambda: (_x(2, 2, low=0.2, high=0.8),)),
    "binary_cross_entropy_with_logits": (
        lambda x: F.binary_cross_entropy_with_logits(x, ag.tensor([[0., 1.], [1., 0.]],
                                                                  dtype=ag.float64),
                                                     pos_weight=ag.tensor([2., 0.5],
                                                                          dtype=ag.float64)),
        lambda: (_x(2, 2),)),
    "kl_div": (lambda x, t: F.kl_div(x.log_softmax(1), t.softmax(1), reduction="batchmean"),
               lambda: (_x(3, 4), _x(3, 4, seed=1))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_and_gradgradcheck(name):
    fn, make = CASES[name]
    inputs = make()
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
