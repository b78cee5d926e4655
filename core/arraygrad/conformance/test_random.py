"""Random generation on the backend: seeded reproducibility and the moments of rand/randn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import arraygrad as ag
from arraygrad.conformance._suite import suite_test

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor
    from arraygrad.conformance.context import Context

N = 20000


def _gen(ctx: Context, seed: Any) -> Any:
    return ag.Generator(ctx.device).manual_seed(seed)


def _moments(t: Tensor) -> tuple[Any, ...]:
    t = t.to("cpu").double()
    mean = float(t.mean())
    return mean, float(((t - mean) ** 2).mean())


def seed_reproducible(ctx: Context) -> None:
    ctx.require_values("seeded reproducibility")
    a = ag.randn(50, generator=_gen(ctx, 3), device=ctx.device)
    b = ag.randn(50, generator=_gen(ctx, 3), device=ctx.device)
    c = ag.randn(50, generator=_gen(ctx, 4), device=ctx.device)
    assert a.tolist() == b.tolist() and a.tolist() != c.tolist()
    ag.manual_seed(7)
    d = ag.rand(5, device=ctx.device)
    ag.manual_seed(7)
    assert ag.rand(5, device=ctx.device).tolist() == d.tolist()


def normal_moments(ctx: Context) -> None:
    ctx.require_values("the moments of randn")
    t = ag.randn(N, generator=_gen(ctx, 0), device=ctx.device, dtype=ctx.float)
    assert t.dtype is ctx.float and t.device == ctx.device
    mean, var = _moments(t)
    assert abs(mean) < 0.05 and abs(var - 1.0) < 0.05, (mean, var)


def uniform_moments(ctx: Context) -> None:
    ctx.require_values("the moments of rand")
    t = ag.rand(N, generator=_gen(ctx, 0), device=ctx.device, dtype=ctx.float)
    mean, var = _moments(t)
    assert float(t.min()) >= 0.0 and float(t.max()) < 1.0
    assert abs(mean - 0.5) < 0.02 and abs(var - 1 / 12) < 0.01, (mean, var)


def randint_range(ctx: Context) -> None:
    ctx.require_values("randint's range")
    t = ag.randint(-3, 4, (1000,), generator=_gen(ctx, 0), device=ctx.device)
    assert t.dtype is ag.int64 and int(t.min()) == -3 and int(t.max()) == 3


def randperm(ctx: Context) -> None:
    ctx.require_values("randperm's permutation")
    t = ag.randperm(20, generator=_gen(ctx, 0), device=ctx.device)
    assert sorted(t.tolist()) == list(range(20))


CHECKS = {"seed_reproducible": seed_reproducible, "normal_moments": normal_moments,
          "uniform_moments": uniform_moments, "randint_range": randint_range,
          "randperm": randperm}

test_random = suite_test(CHECKS)
