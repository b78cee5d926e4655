"""Integer math (``bitwise_left_shift``/``bitwise_right_shift`` and ``<<``/``>>``, ``gcd``,
``lcm``) and a float's parts (``frexp``, ``ldexp``, ``nextafter``): values and dtypes against
PyTorch, PyTorch's results where C leaves shifts undefined, special values, gradients."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _both(fn):
    return fn(ag), fn(torch)


def _same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert np.array_equal(ours.numpy(), theirs.numpy(), equal_nan=True), (ours, theirs)


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.bitwise_left_shift(m.tensor([1, -8, 3, 5]), m.tensor([2, 65, -1, 63])),
    lambda m: m.bitwise_right_shift(m.tensor([-8, 8, -8, 7]), m.tensor([1, -1, 70, 64])),
    lambda m: m.bitwise_left_shift(m.tensor([3], dtype=m.int32), m.tensor([31])),
    lambda m: m.bitwise_right_shift(m.tensor([-5, 9], dtype=m.int32), 33),
    lambda m: m.bitwise_left_shift(3, m.tensor([1, 2])),
    lambda m: m.tensor([True, False]) << 1,
    lambda m: m.tensor([1, 2], dtype=m.int32) << 1,
    lambda m: 2 >> m.tensor([0, 1, 5]),
    lambda m: m.tensor([12, -18, 0, 7, 0]).gcd(m.tensor([8, 4, 5, 0, 0])),
    lambda m: m.lcm(m.tensor([12, -18, 0, -4]), m.tensor([8, 4, 5, 6])),
    lambda m: m.gcd(m.tensor([4, 6], dtype=m.int32), m.tensor([6, 9])),
], ids=["lshift", "rshift", "promote", "rshift_scalar", "scalar_tensor", "bool", "int32_op",
        "rrshift", "gcd", "lcm", "gcd_promote"])
def test_integer_ops_match_torch(call):
    _same(*_both(call))


def test_inplace_shifts_and_operators():
    x = ag.tensor([1, 2])
    x <<= 2
    assert x.tolist() == [4, 8]
    assert x.bitwise_right_shift_(1) is x and x.tolist() == [2, 4]
    x >>= ag.tensor([1, 2])
    assert x.tolist() == [1, 1]
    y = ag.tensor([4, 6])
    assert y.lcm_(ag.tensor([6, 4])) is y and y.tolist() == [12, 12]


@needs_torch
@pytest.mark.parametrize("call", [
    lambda m: m.bitwise_left_shift(m.tensor([1.5]), 1),
    lambda m: m.gcd(m.ones(2), m.ones(2)),
    lambda m: m.gcd(m.tensor([True]), m.tensor([True])),
    lambda m: m.gcd(m.tensor([4]), 2),
    lambda m: m.frexp(m.tensor([1, 2])),
    lambda m: m.nextafter(m.tensor([1, 2]), m.tensor([1, 2])),
], ids=["shift_float", "gcd_float", "gcd_bool", "gcd_scalar", "frexp_int", "nextafter_int"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(ag)


@given(a=st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=8),
       b=st.integers(-10**6, 10**6))
@settings(max_examples=50, deadline=None)
def test_gcd_lcm_property(a, b):
    import math

    g = ag.gcd(ag.tensor(a), ag.tensor([b] * len(a))).tolist()
    assert g == [math.gcd(x, b) for x in a]
    lcm = ag.lcm(ag.tensor(a), ag.tensor([b] * len(a))).tolist()
    assert lcm == [abs(x * b) // math.gcd(x, b) if x and b else 0 for x in a]


SPECIAL = [float("inf"), -float("inf"), float("nan"), -0.0, 0.0, 1e-40, 3.4e38, 1.0, 0.5,
           -0.75, 2.0 ** -126, 7.0, 1 - 2 ** -24]


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_matches_torch(dtype):
    values = np.asarray(SPECIAL, dtype=np.float64).astype(dtype)
    values = values[np.isfinite(values) | ~np.isfinite(np.asarray(SPECIAL))]
    m1, e1 = ag.frexp(ag.tensor(values.tolist(), dtype=getattr(ag, dtype)))
    m2, e2 = torch.frexp(torch.tensor(values.tolist(), dtype=getattr(torch, dtype)))
    _same(m1, m2)
    _same(e1, e2)


@needs_torch
def test_frexp_over_float64s_whole_range():
    rng = np.random.default_rng(0)
    r = rng.standard_normal(2000) * 10.0 ** rng.integers(-307, 307, 2000)
    r = np.concatenate([r, [5e-324, 1.7e308, -2.2e-308]])
    m1, e1 = ag.frexp(ag.tensor(r.tolist(), dtype=ag.float64))
    m2, e2 = torch.frexp(torch.tensor(r))
    _same(m1, m2)
    _same(e1, e2)


def test_frexp_gradient_and_named_result():
    x = ag.tensor([1.5, -3.0, 0.0, 10.0], dtype=ag.float64, requires_grad=True)
    out = ag.frexp(x)
    assert out.mantissa is out[0] and not out.exponent.requires_grad
    away_from_zero = ag.tensor([1.5, -3.0, 10.0], dtype=ag.float64, requires_grad=True)
    assert gradcheck(lambda x: ag.frexp(x).mantissa, (away_from_zero,))  # a jump at 0
    out.mantissa.sum().backward()
    assert x.grad.tolist() == [0.5, 0.25, 1.0, 0.0625]


@needs_torch
@pytest.mark.parametrize("a,b", [("int64", "int64"), ("float16", "int64"), ("float32", "float64"),
                                 ("float64", "int32"), ("int64", "float32")])
def test_ldexp_dtypes_and_values_match_torch(a, b):
    x, e = [1.0, -2.0, 3.0], [1, 2, -3]
    ours = ag.ldexp(ag.tensor(x).to(getattr(ag, a)), ag.tensor(e).to(getattr(ag, b)))
    theirs = torch.ldexp(torch.tensor(x).to(getattr(torch, a)), torch.tensor(e).to(getattr(torch, b)))
    _same(ours, theirs)


def test_ldexp_and_nextafter_gradients():
    x = ag.tensor([1.5, 2.0], dtype=ag.float64, requires_grad=True)
    o = ag.tensor([1.0, -2.5], dtype=ag.float64, requires_grad=True)
    assert gradcheck(ag.ldexp, (x, o)) and gradgradcheck(ag.ldexp, (x, o))
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([3.0, 0.0], requires_grad=True)
    ga, gb = ag.autograd.grad(ag.nextafter(a, b).sum(), [a, b])
    assert ga.tolist() == [1.0, 1.0] and gb.tolist() == [0.0, 0.0]  # PyTorch's NextafterBackward0


@needs_torch
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_nextafter_matches_torch(dtype):
    a, b = [1.0, 0.0, -1.0, 5.0, float("inf")], [2.0, -1.0, -2.0, 5.0, 0.0]
    ours = ag.nextafter(ag.tensor(a, dtype=getattr(ag, dtype)), ag.tensor(b, dtype=getattr(ag, dtype)))
    theirs = torch.nextafter(torch.tensor(a, dtype=getattr(torch, dtype)),
                             torch.tensor(b, dtype=getattr(torch, dtype)))
    _same(ours, theirs)
