"""Soak runs (``make soak``; marker ``soak``, excluded from ``make test``): long training with
hooks registered and removed every step keeps RSS flat. Prints the RSS curve's start/max/end."""

from __future__ import annotations

import resource

import pytest

import arraygrad as ag
from reliability_helpers import report
from arraygrad import nn

pytestmark = pytest.mark.soak


def _rss_mb() -> float:
    # current resident set size from /proc (the high-water mark would hide a plateau)
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * resource.getpagesize() / 2**20


def _soak(model, make_batch, steps: int, label: str, tolerance_mb: float):
    opt = ag.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    samples = []
    for step in range(1, steps + 1):
        x, y = make_batch()
        handles = [model.register_forward_hook(lambda m, i, o: None),
                   model.register_full_backward_hook(lambda m, gi, go: None)]
        out = model(x)
        handles.append(out.register_hook(lambda g: g))
        loss = loss_fn(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        for h in handles:
            h.remove()
        if step % max(1, steps // 50) == 0 or step == 100:
            samples.append((step, _rss_mb()))
    base = next(rss for s, rss in samples if s >= 100)
    after = [rss for s, rss in samples if s >= 100]
    report(f"soak {label}", f"{steps} steps; RSS after step 100 {base:.1f} MB, max "
           f"{max(after):.1f} MB, end {after[-1]:.1f} MB")
    assert max(after) - base < tolerance_mb, samples


def test_mlp_20000_steps_with_hooks_keeps_rss_flat():
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10))
    x, y = ag.randn(64, 32), ag.randint(0, 10, (64,))
    _soak(model, lambda: (x, y), 20_000, "mlp", tolerance_mb=5.0)


def test_conv_net_2000_steps_with_hooks_keeps_rss_flat():
    ag.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
                          nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 16, 64),
                          nn.ReLU(), nn.Linear(64, 10))
    x, y = ag.randn(64, 1, 8, 8), ag.randint(0, 10, (64,))
    _soak(model, lambda: (x, y), 2_000, "conv", tolerance_mb=5.0)
