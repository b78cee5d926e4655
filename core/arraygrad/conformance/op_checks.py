"""The five per-case checks: forward, grad, double_grad (double backward), dtypes, devices.

Each takes the ``Context`` and an ``OpCase`` and raises ``AssertionError`` (or
the op's own error) on failure, or ``pytest.skip`` with a reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.conformance.case import InputMaker
from arraygrad.conformance.compare import assert_close, flat_outputs, tolerances

if TYPE_CHECKING:
    from arraygrad.conformance.context import Context

__all__ = ["CHECKS"]

_NO_F64 = "backend has no float64"

# float32 finite differences need a larger step; their error is ~1e-4 relative.
_F32_GRAD: dict[str, Any] = dict(eps=1e-3, atol=1e-2, rtol=1e-2)


def _inputs(case: Any, device: Any, dtype: Any, seed: int = 0) -> Any:
    return tuple(case.inputs(InputMaker(device, dtype, seed=seed)))


def _reference(case: Any, dtype: Any = ag.float64, seed: int = 0) -> Any:
    return case.fn(*_inputs(case, "cpu", dtype, seed))


def _tolerances(case: Any, dtype: Any) -> tuple[float, float]:
    return tolerances(dtype, case.rtol, case.atol)


def _needs(ctx: Context, case: Any) -> None:
    if "float64" in case.tags and not ctx.float64:
        pytest.skip(f"{case.name} needs float64; {_NO_F64}")
    if "complex" in case.tags:
        lacking = ctx.float.to_complex().name
        if lacking in ctx.lacks:
            pytest.skip(f"{case.name} is complex; the backend lacks {lacking}: "
                        f"{ctx.lacks[lacking]}")


def _dtype_names(ctx: Context, case: Any) -> list[str]:
    """The case's dtypes the backend has (for a complex case, their complex types too)."""
    names = [d for d in case.dtypes if d in ctx.dtypes]
    if "complex" in case.tags:
        names = [d for d in names if getattr(ag, d).to_complex().name not in ctx.lacks]
    return names


def forward(ctx: Context, case: Any) -> None:
    """The case on the backend matches the float64 NumPy reference."""
    _needs(ctx, case)
    out = case.fn(*_inputs(case, ctx.device, ctx.float))
    assert_close(out, _reference(case), *_tolerances(case, ctx.float), what="forward output")


def grad(ctx: Context, case: Any) -> None:
    """Analytic gradients on the backend match central finite differences."""
    _needs(ctx, case)
    inputs = _inputs(case, ctx.device, ctx.float)
    if ctx.float64:
        assert gradcheck(case.fn, inputs, atol=case.grad_atol, rtol=case.grad_rtol)
    else:
        assert gradcheck(case.fn, inputs, **_F32_GRAD)


def double_grad(ctx: Context, case: Any) -> None:
    """Second derivatives (the backward of the backward) match finite differences."""
    _needs(ctx, case)
    inputs = _inputs(case, ctx.device, ctx.float, seed=1)
    if ctx.float64:
        assert gradgradcheck(case.fn, inputs, atol=case.grad_atol, rtol=case.grad_rtol)
    else:
        assert gradgradcheck(case.fn, inputs, **_F32_GRAD)


def dtypes(ctx: Context, case: Any) -> None:
    """In every floating dtype both support, result dtypes equal the reference's, values close."""
    _needs(ctx, case)
    names = _dtype_names(ctx, case)
    if not names:
        pytest.skip(f"backend supports none of {case.dtypes}")
    expected64 = _reference(case)
    for name in names:
        dt = getattr(ag, name)
        out = case.fn(*_inputs(case, ctx.device, dt))
        ref = _reference(case, dt)
        for k, (o, r) in enumerate(zip(flat_outputs(out), flat_outputs(ref))):
            assert o.dtype is r.dtype, f"{name} inputs: output {k} is {o.dtype}, reference {r.dtype}"
        assert_close(out, expected64, *_tolerances(case, dt), what=f"{name} output")


def devices(ctx: Context, case: Any) -> None:
    """Outputs and gradients stay on the backend's device; mixing in a cpu tensor raises."""
    _needs(ctx, case)
    if ctx.is_reference:
        pytest.skip("backend is the cpu reference itself: no second device to mix with")
    inputs = _inputs(case, ctx.device, ctx.float)
    outs = flat_outputs(case.fn(*inputs))
    for k, o in enumerate(outs):
        assert o.device == ctx.device, f"output {k} on {o.device}, expected {ctx.device}"
    diff = [o for o in outs if o.requires_grad]
    if diff:  # (a complex output's parts: backward needs a real loss)
        sum((ag.view_as_real(o) if o.dtype.is_complex else o).sum() for o in diff).backward()
        for k, x in enumerate(inputs):
            if x.requires_grad and x.grad is not None:
                assert x.grad.device == ctx.device, f"grad of input {k} on {x.grad.device}"
    floats = [k for k, x in enumerate(inputs) if x.requires_grad]
    if len(inputs) >= 2 and floats:
        mixed = list(inputs)
        mixed[floats[0]] = inputs[floats[0]].detach().to("cpu")
        with pytest.raises(RuntimeError, match="device"):
            case.fn(*mixed)


CHECKS = {"forward": forward, "grad": grad, "double_grad": double_grad, "dtypes": dtypes,
          "devices": devices}
"""Check functions by check kind (the report's columns)."""
