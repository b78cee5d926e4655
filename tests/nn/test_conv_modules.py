"""Conv1d / Conv2d / ConvTranspose2d modules: default init bounds, repr, padding modes,
output_size, argument errors, and PyTorch agreement with copied weights."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn


def test_default_init_bounds_and_shapes():
    ag.manual_seed(0)
    conv = nn.Conv2d(4, 6, (3, 2), groups=2)
    assert tuple(conv.weight.shape) == (6, 2, 3, 2) and tuple(conv.bias.shape) == (6,)
    fan_in = 2 * 3 * 2
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) gives the same bound
    assert conv.weight.abs().max().item() <= bound
    assert conv.bias.abs().max().item() <= bound
    assert conv.weight.std().item() > bound / 4  # actually random, not constant
    t = nn.ConvTranspose2d(4, 6, 3, groups=2, bias=False)
    assert tuple(t.weight.shape) == (4, 3, 3, 3) and t.bias is None
    assert len(list(nn.Conv1d(2, 3, 4).parameters())) == 2


def test_repr_matches_pytorch_format():
    assert repr(nn.Conv2d(1, 16, 3, padding=1)) == \
        "Conv2d(1, 16, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))"
    assert repr(nn.Conv1d(4, 4, 3, padding="same", groups=2, bias=False, padding_mode="circular")) == \
        "Conv1d(4, 4, kernel_size=(3,), stride=(1,), padding=same, groups=2, bias=False, padding_mode=circular)"
    assert repr(nn.ConvTranspose2d(2, 3, 3, stride=2, output_padding=1)) == \
        "ConvTranspose2d(2, 3, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))"


def test_constructor_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="out_channels must be divisible by groups"):
        nn.Conv2d(4, 3, 3, groups=2)
    with pytest.raises(ValueError, match="Invalid padding string"):
        nn.Conv2d(1, 1, 3, padding="full")
    with pytest.raises(ValueError, match="strided"):
        nn.Conv2d(1, 1, 3, stride=2, padding="same")
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        nn.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match='Only "zeros" padding mode'):
        nn.ConvTranspose2d(1, 1, 3, padding_mode="reflect")


def test_conv_transpose_output_size():
    t = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1)
    x = ag.randn(1, 2, 4, 4)
    assert tuple(t(x).shape) == (1, 3, 7, 7)
    assert tuple(t(x, output_size=(8, 8)).shape) == (1, 3, 8, 8)
    assert tuple(t(x, output_size=[1, 3, 8, 7]).shape) == (1, 3, 8, 7)
    with pytest.raises(ValueError, match="valid sizes range from"):
        t(x, output_size=(9, 9))


def _copy_to_torch(ours, theirs, torch):
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(ours.weight.detach().numpy()))
        if ours.bias is not None:
            theirs.bias.copy_(torch.tensor(ours.bias.detach().numpy()))


@pytest.mark.parametrize("make,shape", [
    (lambda m: m.Conv2d(2, 4, 3, padding=1, padding_mode="reflect"), (2, 2, 5, 6)),
    (lambda m: m.Conv2d(2, 4, (2, 3), padding="same", padding_mode="circular", dilation=2), (2, 2, 6, 7)),
    (lambda m: m.Conv2d(2, 4, 3, padding=2, padding_mode="replicate", stride=2, groups=2), (1, 2, 5, 5)),
    (lambda m: m.Conv1d(3, 2, 3, padding=1, padding_mode="reflect"), (2, 3, 7)),
    (lambda m: m.ConvTranspose2d(2, 4, 3, stride=2, padding=1, output_padding=1, groups=2), (2, 2, 3, 4)),
])
def test_modules_match_torch(make, shape):
    torch = pytest.importorskip("torch")
    ag.manual_seed(1)
    ours, theirs = make(nn), make(torch.nn).double()
    ours = ours.to(ag.float64) if hasattr(ours, "to") else ours
    _copy_to_torch(ours, theirs, torch)
    x = np.random.default_rng(0).standard_normal(shape)
    xa = ag.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    out, ref = ours(xa), theirs(xt)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6, atol=1e-6)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(xa.grad.numpy(), xt.grad.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-6, atol=1e-6)


def test_small_conv_net_trains():
    ag.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
    x = ag.randn(16, 1, 8, 8)
    y = (x[:, 0, :4].sum((1, 2)) > x[:, 0, 4:].sum((1, 2))).long()
    opt = ag.optim.Adam(model.parameters(), lr=0.02)
    losses = []
    for _ in range(30):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]
