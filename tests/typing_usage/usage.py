"""Typed user code over the public API most programs use (tensors, creation, nn.Module,
optim, autograd): ``mypy --strict`` must pass on it (tests/test_typing.py). Not a test module:
it is type-checked, and imported once to show it runs."""

from __future__ import annotations

import arraygrad as ag
import arraygrad.nn as nn
import arraygrad.nn.functional as F
from arraygrad import Tensor


class TwoLayer(nn.Module):
    """A small classifier, as user code writes one."""

    def __init__(self, n_in: int, n_hidden: int, n_out: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.fc2 = nn.Linear(n_hidden, n_out)

    def forward(self, x: Tensor) -> Tensor:
        h: Tensor = F.relu(self.fc1(x))
        out: Tensor = self.fc2(h)
        return out


def make_data(n: int, seed: int) -> tuple[Tensor, Tensor]:
    """Random inputs and class targets."""
    g = ag.Generator().manual_seed(seed)
    x = ag.randn(n, 4, generator=g)
    y = ag.randint(0, 3, (n,), generator=g)
    return x, y


def train(steps: int) -> float:
    """A few SGD steps; the last loss."""
    model = TwoLayer(4, 8, 3)
    opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x, y = make_data(16, 0)
    last = 0.0
    for _ in range(steps):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        last = loss.item()
    return last


def gradients() -> list[float]:
    """``autograd.grad`` of a scalar function, and tensor arithmetic."""
    w = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    z = (w * w).sum() + ag.zeros(3).mean() + ag.ones(2, 2).sum()
    (g,) = ag.autograd.grad(z, (w,))
    with ag.no_grad():
        scaled: Tensor = g * 2.0 - ag.full((3,), 1.0)
    return [float(v) for v in scaled.tolist()]


def shapes() -> tuple[int, ...]:
    """Shape ops and indexing."""
    t = ag.arange(12).reshape(3, 4)
    u = t.transpose(0, 1)[1:, :2].contiguous()
    return tuple(ag.cat([u, u], dim=0).shape)
