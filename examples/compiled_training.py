"""A training loop three ways: eager, a compiled step, and a compiled model (docs/compile.md).

The same classifier (Linear-ReLU-Dropout-Linear, SGD with momentum, a cosine LR schedule)
is trained from the same seed three times:

- eagerly;
- with ``arraygrad.compile(train_step)``: forward, ``backward()``, ``optimizer.step()`` and
  ``scheduler.step()`` recorded once and replayed;
- with ``arraygrad.compile(model)``: the forward (a *training forward*) replayed as a
  forward program and a backward program, the loss, backward and optimizer eager.

It prints each run's final loss, whether its parameters equal the eager run's bit for bit,
and the time per step (timings are printed, never asserted)::

    python examples/compiled_training.py [--steps N]
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Callable

import arraygrad as ag
from arraygrad import nn


def make_data(n: int = 256) -> tuple[ag.Tensor, ag.Tensor]:
    """Two interleaved half-moons: 2-D points and their 0/1 labels."""
    g = ag.Generator().manual_seed(1)
    t = ag.rand(n, generator=g) * math.pi
    label = ag.arange(n) % 2
    moon0 = ag.stack([ag.cos(t), ag.sin(t)], dim=1)
    moon1 = ag.stack([1 - ag.cos(t), 0.5 - ag.sin(t)], dim=1)
    x = ag.where(label[:, None] == 0, moon0, moon1)
    return x + 0.1 * ag.randn(n, 2, generator=g), label


def make_run(seed: int = 0) -> tuple[nn.Module, ag.optim.Optimizer, object]:
    """A fresh model, its optimizer and scheduler, from ``seed``."""
    ag.manual_seed(seed)
    model = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 2))
    opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = ag.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=200)
    return model, opt, sched


def train(steps: int, how: str) -> tuple[list[ag.Tensor], float, float]:
    """Train ``steps`` steps ``how`` ('eager', 'step' or 'model'); the final parameters, the
    last loss and the median seconds per step after the first five."""
    x, y = make_data()
    model, opt, sched = make_run()
    loss_fn = nn.CrossEntropyLoss()
    forward: Callable[[ag.Tensor], ag.Tensor] = ag.compile(model) if how == "model" else model

    def train_step(xb: ag.Tensor, yb: ag.Tensor) -> ag.Tensor:
        opt.zero_grad()
        loss = loss_fn(forward(xb), yb)
        loss.backward()
        opt.step()
        sched.step()
        return loss

    step = ag.compile(train_step) if how == "step" else train_step
    times, loss = [], None
    for i in range(steps):
        lo = (i * 32) % 256
        t0 = time.perf_counter()
        loss = step(x[lo:lo + 32], y[lo:lo + 32])
        times.append(time.perf_counter() - t0)
    rest = sorted(times[5:]) or times
    return [p.detach().clone() for p in model.parameters()], loss.item(), rest[len(rest) // 2]


def main(argv: list[str] | None = None) -> None:
    """Train three ways; print the losses, the bit-for-bit comparison and the step times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200, help="training steps per run")
    args = parser.parse_args(argv)
    eager, eager_loss, eager_s = train(args.steps, "eager")
    print(f"eager:            loss {eager_loss:.6f}  {eager_s * 1e6:8.1f} us/step")
    for how, label in (("step", "compile(step)"), ("model", "compile(model)")):
        params, loss, seconds = train(args.steps, how)
        same = all(ag.equal(a, b) for a, b in zip(params, eager))
        print(f"{label + ':':17s} loss {loss:.6f}  {seconds * 1e6:8.1f} us/step  "
              f"(x{eager_s / seconds:.2f})  parameters equal eager's bit for bit: {same}")


if __name__ == "__main__":
    main()
