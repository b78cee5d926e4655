"""The checks the ``linalg`` case tables share (``test_linalg_ops.py``,
``test_linalg_factorizations.py``): each case is ``(fn(lib, linalg, *inputs), shapes)``, run
on random float64 inputs in [-1, 1) by gradcheck/gradgradcheck and against PyTorch (callers
skip without it)."""

from __future__ import annotations

from typing import Any, Callable

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from torch_compare import flat, torch


def inputs(shapes: list[tuple[int, ...]], seed: int = 0) -> list[Any]:
    """Float64 leaves of ``shapes`` drawn uniformly in [-1, 1) from a generator seeded
    ``seed``."""
    g = ag.Generator().manual_seed(seed)
    return [(ag.rand(*s, generator=g, dtype=ag.float64) * 2 - 1).requires_grad_(True)
            for s in shapes]


def check_gradients(fn: Callable[..., Any], shapes: list[tuple[int, ...]]) -> None:
    """gradcheck and gradgradcheck of ``fn(ag, ag.linalg, *inputs)``."""
    xs = inputs(shapes)
    f = lambda *a: fn(ag, ag.linalg, *a)  # noqa: E731
    assert gradcheck(f, tuple(xs))
    assert gradgradcheck(f, tuple(xs))


def check_against_torch(fn: Callable[..., Any], shapes: list[tuple[int, ...]], *,
                        backward: bool = True, allow_unused: bool = False,
                        unused_atol: float = 0.0) -> None:
    """``fn`` on both libraries: outputs equal PyTorch's, then (with ``backward``) the
    gradients of a weighted sum of them. Where PyTorch's gradient is None (an input it does
    not use) ours is None (only with ``allow_unused``) or zero within ``unused_atol``."""
    xs = inputs(shapes, seed=1)
    ts = [torch.tensor(x.detach().tolist(), dtype=torch.float64, requires_grad=True) for x in xs]
    outs = flat(fn(ag, ag.linalg, *xs))
    touts = flat(fn(torch, torch.linalg, *ts))
    assert len(outs) == len(touts)
    for o, t in zip(outs, touts):
        assert tuple(o.shape) == tuple(t.shape)
        assert torch.allclose(torch.tensor(o.detach().tolist(), dtype=torch.float64),
                              t.detach(), rtol=1e-7, atol=1e-9), (o, t)
    if not backward:
        return
    loss = sum(((o * (i + 1.5)).sum() for i, o in enumerate(outs)),
               ag.tensor(0.0, dtype=ag.float64))
    tloss = sum(((o * (i + 1.5)).sum() for i, o in enumerate(touts)))
    grads = ag.autograd.grad(loss, xs, allow_unused=allow_unused)
    tgrads = torch.autograd.grad(tloss, ts, allow_unused=True)
    for g, tg in zip(grads, tgrads):
        if tg is None:
            assert g is None or float(g.abs().max()) <= unused_atol
            continue
        assert torch.allclose(torch.tensor(g.tolist(), dtype=torch.float64), tg,
                              rtol=1e-6, atol=1e-8), (g, tg)
