"""Broadcasting, dtype promotion and reduction dim/keepdim rules on the backend under test."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

import arraygrad as ag
from arraygrad.conformance._suite import suite_test
from arraygrad.conformance.compare import assert_close

if TYPE_CHECKING:
    from arraygrad.conformance.context import Context


def _pair(ctx: Context, shapes: Any) -> tuple[Any, ...]:
    g = ag.Generator("cpu").manual_seed(5)
    ref = [ag.rand(*s, generator=g, dtype=ag.float64) for s in shapes]
    return ref, [r.to(ctx.device, ctx.float) for r in ref]


def broadcast_shapes(ctx: Context) -> None:
    for a, b, out in [((2, 1, 3), (4, 1), (2, 4, 3)), ((3,), (2, 3), (2, 3)),
                      ((), (2,), (2,)), ((1,), (3, 1), (3, 1))]:
        ref, (x, y) = _pair(ctx, [a, b])
        assert tuple((x + y).shape) == out
        assert_close(x * y, ref[0] * ref[1], 1e-6, 1e-7)


def broadcast_incompatible(ctx: Context) -> None:
    _, (x, y) = _pair(ctx, [(2, 3), (4,)])
    with pytest.raises(RuntimeError):
        x + y


def broadcast_grad_shapes(ctx: Context) -> None:
    _, (x, y) = _pair(ctx, [(2, 1, 3), (4, 1)])
    x.requires_grad_(), y.requires_grad_()
    (x * y).sum().backward()
    assert tuple(x.grad.shape) == (2, 1, 3) and tuple(y.grad.shape) == (4, 1)


def _t(ctx: Context, data: Any, dtype: Any) -> Any:
    return ag.tensor(data, dtype=dtype, device=ctx.device)


def promotion(ctx: Context) -> None:
    f = ag.float32
    cases = [
        (lambda: _t(ctx, [1, 2], ag.int64) * 1.5, f, [1.5, 3.0]),
        (lambda: _t(ctx, [1, 2], ag.int64) + 2, ag.int64, [3, 4]),
        (lambda: _t(ctx, [1, 2], ag.int32) + _t(ctx, [1, 1], ag.int64), ag.int64, [2, 3]),
        (lambda: _t(ctx, [True, False], ag.bool) + _t(ctx, [1, 1], ag.int64), ag.int64, [2, 1]),
        (lambda: _t(ctx, [1, 3], ag.int64) / _t(ctx, [2, 2], ag.int64), f, [0.5, 1.5]),
        (lambda: _t(ctx, [1., 2.], f) + _t(ctx, 1., ag.float64 if ctx.float64 else f), f,
         [2.0, 3.0]),
        (lambda: _t(ctx, [1, 2], ag.int32) * 2, ag.int32, [2, 4]),
    ]
    if ctx.float64:
        cases.append((lambda: _t(ctx, [1.], f) + _t(ctx, [1.], ag.float64), ag.float64, [2.0]))
    for k, (make, dtype, values) in enumerate(cases):
        out = make()
        assert out.dtype is dtype, f"promotion case {k}: {out.dtype}, expected {dtype}"
        if ctx.values:
            assert out.tolist() == values, f"promotion case {k}: {out.tolist()} != {values}"


def reduction_dims(ctx: Context) -> None:
    ref, (x,) = _pair(ctx, [(2, 3, 4)])
    for op in ("sum", "mean", "amax", "prod"):
        for dim in (None, 0, -1, (0, 2)):
            for keepdim in (False, True):
                if dim is None and keepdim:
                    continue
                kw = {} if dim is None else {"dim": dim, "keepdim": keepdim}
                if op == "prod" and isinstance(dim, tuple):
                    continue
                got = getattr(x, op)(**kw)
                want = getattr(ref[0], op)(**kw)
                assert_close(got, want, 1e-6, 1e-7, what=f"{op}({kw})")


def reduction_dim_out_of_range(ctx: Context) -> None:
    _, (x,) = _pair(ctx, [(2, 3)])
    with pytest.raises(IndexError):
        x.sum(2)


def reduction_max_indices(ctx: Context) -> None:
    x = ag.tensor([[1., 5., 2.], [7., 0., 3.]], device=ctx.device, dtype=ctx.float)
    values, indices = x.max(1)
    assert indices.dtype is ag.int64 and tuple(indices.shape) == (2,)
    if ctx.values:
        assert indices.tolist() == [1, 0] and values.tolist() == [5.0, 7.0]


CHECKS = {
    "broadcast_shapes": broadcast_shapes, "broadcast_incompatible": broadcast_incompatible,
    "broadcast_grad_shapes": broadcast_grad_shapes, "promotion": promotion,
    "reduction_dims": reduction_dims, "reduction_dim_out_of_range": reduction_dim_out_of_range,
    "reduction_max_indices": reduction_max_indices,
}

test_rules = suite_test(CHECKS)
