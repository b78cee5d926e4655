"""A second backward() adds to ``.grad`` on backends whose arrays cannot be written into.

Before functional writes, accumulation did ``data += g``: on JAX and Dask that rebinds a
local, and ``x.grad`` held only the last micro-batch's gradient.
"""

import pytest

import arraygrad as ag
from arraygrad import nn


def test_micro_batches_accumulate(device):
    x = ag.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    for k in (1.0, 2.0, 3.0):  # d/dx sum(k x^2) = 2 k x
        (x * x * k).sum().backward()
    assert x.grad.tolist() == pytest.approx([12.0, 24.0, 36.0])


def test_micro_batches_accumulate_in_a_model_as_one_big_batch(device):
    ag.manual_seed(0)
    model = nn.Linear(4, 3)
    data, target = ag.randn(8, 4), ag.randn(8, 3)
    whole = [g.tolist() for g in ag.autograd.grad(
        nn.functional.mse_loss(model(data), target, reduction="sum"), list(model.parameters()))]
    model.to(device)
    data, target = data.to(device), target.to(device)
    for half in (slice(0, 4), slice(4, 8)):
        nn.functional.mse_loss(model(data[half]), target[half], reduction="sum").backward()
    for p, expected in zip(model.parameters(), whole):
        assert ag.tensor(p.grad.tolist()).allclose(ag.tensor(expected), atol=1e-5)


def test_accumulation_bumps_the_version_and_keeps_the_grad_tensor(device):
    x = ag.ones(2, device=device, requires_grad=True)
    x.sum().backward()
    grad, version = x.grad, x.grad._version
    (2 * x).sum().backward()
    assert x.grad is grad and grad._version == version + 1  # as PyTorch: the same tensor
    assert grad.tolist() == [3.0, 3.0]
