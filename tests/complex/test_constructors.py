"""Complex dtypes and the tensors made of them: constructors, Python complex numbers, casts,
random draws and the dtype queries, against PyTorch where installed."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import arraygrad as ag
from tests.complex.torch_pairs import assert_same, complex_pair, needs_torch, torch


def test_dtypes_and_aliases():
    assert (ag.cfloat, ag.cdouble) == (ag.complex64, ag.complex128)
    assert ag.complex64.is_complex and not ag.complex64.is_floating_point
    assert ag.complex64.to_real() is ag.float32 and ag.complex128.itemsize == 16
    x = ag.tensor([1 + 2j, 3 - 4j])
    assert x.dtype is ag.complex64 and x.is_complex() and ag.is_complex(x)
    assert not x.is_floating_point() and x.element_size() == 8
    assert x.tolist() == [1 + 2j, 3 - 4j] and ag.tensor(2.5j).item() == 2.5j


def test_python_complex_numbers_in_arithmetic():
    x = ag.tensor([1.0, 2.0])
    y = x * 1j + (0.5 - 1j)
    assert y.dtype is ag.complex64 and y.tolist() == [0.5, 0.5 + 1j]
    assert (ag.tensor([1, 2]) * 1j).dtype is ag.complex64
    assert (ag.tensor([1.0], dtype=ag.float64) + 2j).dtype is ag.complex128
    assert (ag.tensor([1j]) / 2).tolist() == [0.5j]


def test_factories_take_complex_dtypes():
    assert ag.zeros(2, dtype=ag.cfloat).tolist() == [0j, 0j]
    assert ag.full((2,), 1 - 1j).dtype is ag.complex64
    assert ag.full((1,), 3, dtype=ag.cdouble).tolist() == [3 + 0j]
    assert ag.eye(2, dtype=ag.cfloat).tolist() == [[1, 0], [0, 1]]
    assert ag.linspace(0, 1, 3, dtype=ag.cfloat).tolist() == [0j, 0.5 + 0j, 1 + 0j]
    with pytest.raises(NotImplementedError, match="arange_cpu.*ComplexFloat"):
        ag.arange(3, dtype=ag.cfloat)


def test_random_complex_draws_have_pytorchs_moments():
    ag.manual_seed(0)
    z = ag.randn(200000, dtype=ag.cdouble)
    # PyTorch's complex normal: each part has variance 1/2, so E|z|^2 = 1
    assert abs(float(z.real.var()) - 0.5) < 0.01 and abs(float(z.imag.var()) - 0.5) < 0.01
    assert abs(float((z.abs() ** 2).mean()) - 1.0) < 0.01
    u = ag.rand(200000, dtype=ag.cfloat)
    assert 0 <= float(u.real.min()) and float(u.imag.max()) < 1
    assert abs(float(u.imag.mean()) - 0.5) < 0.01


def test_casting_complex_to_real_warns_and_keeps_the_real_part():
    z = ag.tensor([1.5 + 2j, -3 - 4j])
    with pytest.warns(UserWarning, match="Casting complex values to real discards the "
                                         "imaginary part"):
        x = z.float()
    assert x.tolist() == [1.5, -3.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert z.real.tolist() == [1.5, -3.0]  # the part itself: no warning
        assert ag.tensor([1.0]).cfloat().dtype is ag.complex64


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m, z: z.to(m.complex64),
    lambda m, z: m.tensor([1, 2]).to(m.complex128) * 2j,
    lambda m, z: z.to(m.complex64) + m.tensor([1.0, 2.0], dtype=m.float64),
    lambda m, z: z.to(m.complex64) * m.tensor(2.0, dtype=m.float64),
    lambda m, z: m.tensor([1.0, 2.0], dtype=m.float16) * 1j,
    lambda m, z: z / m.tensor([2, 4]),
], ids=["narrow", "int-times-j", "dim-float64", "0dim-float64", "float16-times-j", "by-ints"])
def test_casts_and_promotions_equal_pytorchs(call):
    ours, theirs = complex_pair((2,), requires_grad=False)
    expected = call(torch, theirs)
    if expected.dtype == torch.complex32:  # arraygrad's complex64 (docs/differences.md)
        expected = expected.to(torch.complex64)
    assert_same(call(ag, ours), expected, rtol=1e-6)


@needs_torch
def test_finfo_of_complex_is_its_parts():
    for name in ("complex64", "complex128"):
        a, t = ag.finfo(getattr(ag, name)), torch.finfo(getattr(torch, name))
        assert (a.eps, a.max, a.dtype) == (t.eps, t.max, str(t.dtype).split(".")[-1])
    with pytest.raises(TypeError):
        ag.iinfo(ag.cfloat)


@needs_torch
@pytest.mark.parametrize("name", ["lt", "ge", "maximum", "clamp", "relu", "sign", "floor",
                                  "round", "argmax", "amax", "sort", "remainder", "atan2",
                                  "signbit", "nansum", "fmod"])
def test_ops_pytorch_refuses_complex_to_are_refused_alike(name):
    calls = {
        "lt": lambda m, z: z < z, "ge": lambda m, z: z >= 1, "maximum": lambda m, z: m.maximum(z, z),
        "clamp": lambda m, z: z.clamp(0, 1), "relu": lambda m, z: m.relu(z),
        "sign": lambda m, z: m.sign(z), "floor": lambda m, z: m.floor(z),
        "round": lambda m, z: m.round(z), "argmax": lambda m, z: z.argmax(),
        "amax": lambda m, z: z.amax(), "sort": lambda m, z: z.sort(),
        "remainder": lambda m, z: z % 2, "atan2": lambda m, z: m.atan2(z, z),
        "signbit": lambda m, z: m.signbit(z), "nansum": lambda m, z: m.nansum(z),
        "fmod": lambda m, z: m.fmod(z, 2),
    }
    ours, theirs = complex_pair((3,), requires_grad=False)
    with pytest.raises(Exception) as t:
        calls[name](torch, theirs)
    with pytest.raises(Exception) as o:
        calls[name](ag, ours)
    assert type(o.value).__name__ == type(t.value).__name__, (o.value, t.value)
    assert str(o.value).replace("ComplexDouble", "?") == str(t.value).replace("ComplexDouble", "?")


def test_the_default_complex_dtype_is_complex64_beside_float16():
    ag.set_default_dtype(ag.float16)
    try:  # PyTorch's would be complex32, which arraygrad lacks (docs/differences.md)
        assert ag.tensor([1j]).dtype is ag.complex64
    finally:
        ag.set_default_dtype(ag.float32)
    assert math.isclose(abs(ag.tensor(3 + 4j).item()), 5.0)


@needs_torch
@pytest.mark.parametrize("convert", [complex, float, int])
def test_python_number_conversions_as_pytorchs(convert):
    for value in (1 + 2j, 3.0 + 0j):
        try:
            theirs = convert(torch.tensor(value))
        except RuntimeError as e:
            with pytest.raises(RuntimeError, match=str(e)):
                convert(ag.tensor(value))
        else:
            assert convert(ag.tensor(value)) == theirs
    assert complex(ag.tensor(2.5)) == 2.5 + 0j
