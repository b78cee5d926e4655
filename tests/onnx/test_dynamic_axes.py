"""Dynamic axes: the numbers of the recorded program that are sizes, found by recording
again with longer axes (``arraygrad.onnx._dims``), and what cannot be exported dynamic."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.onnx._dims import SymInt, fit
from arraygrad.onnx.errors import SymbolicValueError
from onnx_models import onnx, run


def _sizes(**base):
    """The example's sizes, each axis doubled alone, then all tripled (what export records)."""
    out = [dict(base)]
    for name in base:
        out.append({n: s * (2 if n == name else 1) for n, s in base.items()})
    out.append({n: 3 * s for n, s in base.items()})
    return out


def _values(formula, sizes):
    return [formula(**s) for s in sizes]


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(1, 5), st.integers(-4, 4),
       st.sampled_from(["b", "s", "bs"]))
def test_fit_finds_coefficient_product_and_offset(b, s, coef, offset, axes):
    """``coef * product(axes) + offset`` is found from the recordings' values, exactly."""
    sizes = _sizes(b=b, s=s)

    def formula(b, s):
        product = (b if "b" in axes else 1) * (s if "s" in axes else 1)
        return coef * product + offset

    got = fit(_values(formula, sizes), sizes, lambda: "n")
    assert isinstance(got, SymInt)
    assert got.value == formula(b, s)
    assert got.coef == coef and got.offset == offset and got.axes == tuple(sorted(axes))


def test_fit_constants_halves_and_names():
    sizes = _sizes(n=8)
    assert fit([4, 4, 4], sizes, lambda: "n") == 4
    half = fit(_values(lambda n: n // 2, sizes), sizes, lambda: "n")
    assert half.coef == Fraction(1, 2) and half.offset == 0
    same = fit(_values(lambda n: n, sizes), sizes, lambda: "n")
    assert same.is_axis() == "n" and same.text() == "n"
    assert fit(_values(lambda n: 2 * n + 1, sizes), sizes, lambda: "n").text() == "2*n+1"


def test_fit_refuses_what_no_formula_gives():
    sizes = _sizes(n=7)
    with pytest.raises(SymbolicValueError, match="number 3.*n"):
        fit(_values(lambda n: n // 3, sizes), sizes, lambda: "number 3")
    with pytest.raises(SymbolicValueError):
        fit(_values(lambda n: n * n, sizes), sizes, lambda: "number 3")


def test_sizes_computed_in_the_forward_follow_the_axes():
    def f(x):
        n = x.shape[0]
        head = x[: n // 2]  # the first half (even sizes)
        tail = ag.cat([x, x[:1]], 0)[1:]  # n + 1, then n again
        return head.sum(0), tail.reshape(n, 2, -1).mean(1)

    x = ag.randn(6, 4)
    proto = ag.onnx.export(f, (x,), dynamic_axes={"x": {0: "n"}}).model_proto
    onnx.checker.check_model(proto, full_check=True)
    for n in (6, 2, 10):
        x = ag.randn(n, 4)
        for got, want in zip(run(proto, {"x": x}), f(x)):
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)


def test_an_output_size_that_is_a_formula_is_named_by_it():
    def f(x):
        return ag.cat([x, x], 0)

    proto = ag.onnx.export(f, (ag.randn(3, 2),), dynamic_axes={"x": {0: "n"}}).model_proto
    dims = [d.dim_param or d.dim_value for d in proto.graph.output[0].type.tensor_type.shape.dim]
    assert dims == ["2*n", 2]
    assert run(proto, {"x": ag.randn(5, 2)})[0].shape == (10, 2)


def test_what_cannot_be_exported_dynamic_says_so():
    def thirds(x):
        return x[: x.shape[0] // 3]

    with pytest.raises(SymbolicValueError, match="cannot write"):
        ag.onnx.export(thirds, (ag.randn(7, 2),), dynamic_axes={"x": {0: "n"}})

    def scaled(x):
        return x * (1.0 / x.shape[0])

    with pytest.raises(SymbolicValueError, match="computed from a"):
        ag.onnx.export(scaled, (ag.randn(4, 2),), dynamic_axes={"x": {0: "n"}})

    def branches(x):
        return x.sum(0) if x.shape[0] < 5 else x.sum(0).exp().log().neg()

    with pytest.raises(SymbolicValueError, match="depend on the sizes"):
        ag.onnx.export(branches, (ag.randn(4, 2),), dynamic_axes={"x": {0: "n"}})
    assert ag.onnx.export(thirds, (ag.randn(7, 2),)) is not None  # static: fine


def test_inconsistent_or_impossible_axes_are_value_errors():
    def f(x, y):
        return x.sum(0) + y.sum(0)

    with pytest.raises(ValueError, match="has size 2 in one input and 3"):
        ag.onnx.export(f, (ag.randn(2, 3), ag.randn(3, 3)),
                       dynamic_axes={"x": {0: "n"}, "y": {0: "n"}})
    with pytest.raises(ValueError, match="dynamic axis 2"):
        ag.onnx.export(f, (ag.randn(2, 3), ag.randn(2, 3)), dynamic_axes={"x": {2: "n"}})


def test_two_inputs_share_an_axis():
    def f(x, y):
        return (x * y).sum(-1)

    proto = ag.onnx.export(f, (ag.randn(4, 3), ag.randn(4, 3)),
                           dynamic_axes={"x": {0: "n"}, "y": {0: "n"}}).model_proto
    x, y = ag.randn(9, 3), ag.randn(9, 3)
    np.testing.assert_allclose(run(proto, {"x": x, "y": y})[0], f(x, y).numpy(), rtol=1e-6)


def test_negative_axes_name_the_input_dims():
    proto = ag.onnx.export(lambda x: x * 2, (ag.randn(2, 3),),
                           dynamic_axes={"x": {-1: "n", 0: "b"}}).model_proto
    dims = [d.dim_param or d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim]
    assert dims == ["b", "n"]
    assert run(proto, {"x": ag.randn(4, 5)})[0].shape == (4, 5)
