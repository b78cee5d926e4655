"""Scatter-add, host and DLPack round trips, device placement and mixed-device errors."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

import arraygrad as ag
from arraygrad.conformance._suite import suite_test
from arraygrad.conformance.compare import assert_close

if TYPE_CHECKING:
    from arraygrad.conformance.context import Context

_REFERENCE = "backend is the cpu reference itself: no second device to mix with"


def scatter_add_repeated(ctx: Context) -> None:
    ctx.require_values("scatter_add's sums")
    b = ctx.backend
    xp = b.xp
    target = xp.zeros((4,), dtype=b.native_dtype(ctx.float))
    key = xp.asarray([0, 0, 2, 0], dtype=xp.int64)
    values = xp.asarray([1.0, 2.0, 3.0, 4.0], dtype=b.native_dtype(ctx.float))
    out = b.scatter_add(target, key, values)
    assert ag.Tensor._wrap(out, b).tolist() == [7.0, 0.0, 3.0, 0.0]


def scatter_add_in_backward(ctx: Context) -> None:
    x = ag.tensor([1.0, 2.0, 3.0], dtype=ctx.float, device=ctx.device, requires_grad=True)
    idx = ag.tensor([0, 0, 2, 0], device=ctx.device)
    x[idx].sum().backward()
    assert_close(x.grad, ag.tensor([3.0, 0.0, 1.0], dtype=ctx.float), 0.0, 0.0,
                 what="gradient of indexing with repeats")


def host_roundtrip(ctx: Context) -> None:
    ctx.require_values("a host round trip")
    data = [[1.5, -2.0], [0.25, 4.0]]
    t = ag.tensor(data, dtype=ctx.float, device=ctx.device)
    assert t.tolist() == data and t[1, 0].item() == 0.25
    back = t.to("cpu").to(ctx.device)
    assert back.device == ctx.device and back.tolist() == data
    for dt in ("int64", "bool"):
        if dt in ctx.dtypes:
            i = ag.tensor([1, 0, 3], dtype=getattr(ag, dt), device=ctx.device)
            assert i.to("cpu").to(ctx.device).tolist() == i.tolist()


def dlpack_roundtrip(ctx: Context) -> None:
    ctx.require_values("a DLPack round trip")
    t = ag.tensor([1.0, 2.0, 3.0], dtype=ctx.float, device=ctx.device)
    exported = ag.from_dlpack(t)  # lands on the device DLPack reports
    assert exported.tolist() == [1.0, 2.0, 3.0]
    imported = ctx.backend.from_dlpack(t.to("cpu")._data if ctx.is_reference else t._data)
    assert ag.Tensor._wrap(imported, ctx.backend).tolist() == [1.0, 2.0, 3.0]


def device_placement(ctx: Context) -> None:
    if ctx.is_reference:
        pytest.skip(_REFERENCE)
    for t in (ag.zeros(2, device=ctx.device), ag.ones(2, 3, device=ctx.device),
              ag.arange(4, device=ctx.device), ag.randn(3, device=ctx.device),
              ag.tensor([1.0], device=ctx.device), ag.zeros(2).to(ctx.device)):
        assert t.device == ctx.device
    x = ag.ones(3, device=ctx.device, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad.device == ctx.device


def mixed_device_error(ctx: Context) -> None:
    if ctx.is_reference:
        pytest.skip(_REFERENCE)
    a = ag.ones(3, device=ctx.device)
    b = ag.ones(3)
    for op in (lambda: a + b, lambda: b * a, lambda: ag.cat([a, b]), lambda: a @ b):
        with pytest.raises(RuntimeError, match="device"):
            op()


CHECKS = {"scatter_add_repeated": scatter_add_repeated,
          "scatter_add_in_backward": scatter_add_in_backward,
          "host_roundtrip": host_roundtrip, "dlpack_roundtrip": dlpack_roundtrip,
          "device_placement": device_placement, "mixed_device_error": mixed_device_error}

test_transfer = suite_test(CHECKS)
