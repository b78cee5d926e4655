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
    if "values_shape" in case.tags and not ctx.values:
        pytest.skip(f"{case.name}'s result depends on the input values, and the {ctx.name!r} "
                    "backend holds none (capabilities['values'] is False)")
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


def _real_sum(tensors: list[Any]) -> Any:
    """The sum of every element of ``tensors``, a complex one's real and imaginary parts
    counted apart (backward needs a real loss)."""
    return sum((ag.view_as_real(t) if t.dtype.is_complex else t).sum() for t in tensors)


def _gradients(case: Any, device: Any, dtype: Any, seed: int, order: int) -> list[Any]:
    """The gradients (``order`` 1 or 2) of the sum of the case's differentiable outputs with
    respect to its inputs that require grad (None where unused)."""
    inputs = _inputs(case, device, dtype, seed)
    wrt = [x for x in inputs if x.requires_grad]
    outs = [o for o in flat_outputs(case.fn(*inputs)) if o.requires_grad]
    if not outs or not wrt:
        return []
    grads = ag.autograd.grad(_real_sum(outs), wrt, allow_unused=True,
                             create_graph=order == 2)
    if order == 2:
        again = [g for g in grads if g is not None and g.requires_grad]
        if not again:
            return [None] * len(wrt)
        grads = ag.autograd.grad(_real_sum(again), wrt, allow_unused=True)
    return list(grads)


def _gradient_shapes(ctx: Context, case: Any, seed: int, order: int) -> None:
    """A backend without values: the gradients' shapes and dtypes are the reference's."""
    got = _gradients(case, ctx.device, ctx.float, seed, order)
    ref = _gradients(case, "cpu", ctx.float, seed, order)
    assert len(got) == len(ref), f"{len(got)} gradients, reference has {len(ref)}"
    for k, (g, r) in enumerate(zip(got, ref)):
        assert (g is None) == (r is None), f"gradient {k}: {g is None=}, reference {r is None=}"
        if g is not None:
            assert g.device == ctx.device, f"gradient {k} on {g.device}"
            assert_close(g, r, 0.0, 0.0, what=f"order-{order} gradient")


def grad(ctx: Context, case: Any) -> None:
    """Analytic gradients on the backend match central finite differences (without values:
    their shapes and dtypes are the reference's)."""
    _needs(ctx, case)
    if not ctx.values:
        return _gradient_shapes(ctx, case, 0, 1)
    inputs = _inputs(case, ctx.device, ctx.float)
    if ctx.float64:
        assert gradcheck(case.fn, inputs, atol=case.grad_atol, rtol=case.grad_rtol)
    else:
        assert gradcheck(case.fn, inputs, **_F32_GRAD)


def double_grad(ctx: Context, case: Any) -> None:
    """Second derivatives (the backward of the backward) match finite differences (without
    values: their shapes and dtypes are the reference's)."""
    _needs(ctx, case)
    if not ctx.values:
        return _gradient_shapes(ctx, case, 1, 2)
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
        # without values: the shapes (and dtypes) of the reference in that dtype
        assert_close(out, expected64 if ctx.values else ref, *_tolerances(case, dt),
                     what=f"{name} output")


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
    if diff:
        _real_sum(diff).backward()
        for k, x in enumerate(inputs):
            if x.requires_grad and x.grad is not None:
                assert x.grad.device == ctx.device, f"grad of input {k} on {x.grad.device}"
    floats = [k for k, x in enumerate(inputs) if x.requires_grad]
    if len(inputs) >= 2 and floats:
        mixed = list(inputs)
        # the same input made on the cpu (a device without values has none to move there)
        mixed[floats[0]] = _inputs(case, "cpu", ctx.float)[floats[0]].detach()
        with pytest.raises(RuntimeError, match="device"):
            case.fn(*mixed)


CHECKS = {"forward": forward, "grad": grad, "double_grad": double_grad, "dtypes": dtypes,
          "devices": devices}
"""Check functions by check kind (the report's columns)."""
