"""clamp, leaky_relu and hardtanh computed without NumPy's ``where`` on random masks (clip with
two bounds; ``max(x, slope * x)``; a 0/1 factor blend; a 0/1 mask): the values, signed zeros,
infinities and NaN of the ``where`` formulas they replaced, bit for bit (hardtanh's gradient up
to the sign of its zeros), forward and backward, and PyTorch's."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import arraygrad as ag
import arraygrad.nn.functional as F
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn._ops import _blend_is_exact
from arraygrad.ops.rule import reference_mode

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

SPECIAL = [-0.0, 0.0, np.nan, -1.0, 1.0, 2.0, -2.0, -np.inf, np.inf, 0.5, -0.5, 6.0, 1e-40]


def _same(a, b):
    """Equal bit for bit up to NaN payloads: values, NaN positions and zero signs."""
    a, b = np.asarray(a), np.asarray(b)
    return (a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
            and np.array_equal(np.signbit(a[~np.isnan(a)]), np.signbit(b[~np.isnan(b)])))


def _floats(dtype):
    width = 32 if dtype == np.float32 else 64
    return hnp.arrays(dtype, hnp.array_shapes(max_dims=3, max_side=7),
                      elements=st.one_of(st.floats(width=width), st.sampled_from(SPECIAL)))


@settings(max_examples=80, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), data=st.data(),
       low=st.one_of(st.none(), st.sampled_from([-1.0, 0.0, -0.0, 0.5, -np.inf])),
       high=st.one_of(st.none(), st.sampled_from([1.0, 0.0, -0.0, 6.0, -2.0, np.inf])))
def test_clamp_is_the_where_formula_bit_for_bit(dtype, data, low, high):
    if low is None and high is None:
        low = 0.0
    x = data.draw(_floats(dtype))
    want = x.copy()
    if low is not None:
        want = np.where(want < low, dtype(low), want)
    if high is not None:
        want = np.where(want > high, dtype(high), want)
    assert _same(ag.tensor(x).clamp(low, high).numpy(), want)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), data=st.data())
def test_relu_is_the_maximum_formula_up_to_the_sign_of_zero(dtype, data):
    # relu is NumPy's clip ufunc to [0, inf] (twice as fast as its maximum): the same values
    # and NaN; a -0.0 input may stay -0.0 (PyTorch's relu) where maximum gave 0.0
    x = data.draw(_floats(dtype))
    g = data.draw(hnp.arrays(dtype, x.shape, elements=st.floats(-4, 4, width=32)))
    for reference in (False, True):
        with reference_mode(reference):
            t = ag.tensor(x, requires_grad=True)
            out = F.relu(t)
            out.backward(ag.tensor(g))
        found = out.detach().numpy()
        assert found.dtype == dtype
        np.testing.assert_array_equal(found, np.maximum(x, dtype(0)))
        assert not np.signbit(found[(found != 0) & ~np.isnan(found)]).any()
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(t.grad.numpy(), np.where(x > 0, g, dtype(0)) +
                                          np.where(np.isnan(x), g, dtype(0)))


def test_clamp_of_integers_and_with_tensor_bounds_keeps_its_paths():
    x = ag.tensor([-3, 0, 5, 9])
    assert ag.clamp(x, 0, 6).tolist() == [0, 0, 5, 6] and ag.clamp(x, 0, 6).dtype == ag.int64
    assert ag.clamp(x, min=1.5).tolist() == [1.5, 1.5, 5.0, 9.0]
    t = ag.tensor([-1.0, 0.5, 3.0])
    assert ag.clamp(t, ag.tensor([0.0, 0.0, 0.0]), ag.tensor(2.0)).tolist() == [0.0, 0.5, 2.0]
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        ag.clamp(t)


@settings(max_examples=80, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), data=st.data(),
       slope=st.sampled_from([0.01, 0.2, 0.1, 1.0, 0.0, 1e-30, 1.5, -0.3, 0.3, 1 / 3]))
def test_leaky_relu_forward_and_backward_are_the_where_formulas(dtype, data, slope):
    x = data.draw(_floats(dtype))
    g = data.draw(hnp.arrays(dtype, x.shape, elements=st.one_of(
        st.floats(width=32 if dtype == np.float32 else 64), st.sampled_from(SPECIAL))))
    s = dtype(slope)
    with np.errstate(all="ignore"):
        want_out = np.where(x > 0, x, x * s)
        want_grad = np.where(x > 0, g, g * s)
    for reference in (False, True):
        with reference_mode(reference):
            t = ag.tensor(x, requires_grad=True)
            out = F.leaky_relu(t, slope)
            out.backward(ag.tensor(g))
        assert out.grad_fn is None or out.grad_fn.name() == "LeakyReluBackward0"
        assert _same(out.detach().numpy(), want_out)
        assert _same(t.grad.numpy(), want_grad)


@settings(max_examples=200, deadline=None)
@given(slope=st.floats(0, 1), bits=st.sampled_from([32, 64]))
def test_the_blend_is_taken_only_where_it_is_exact(slope, bits):
    dtype = np.float32 if bits == 32 else np.float64
    s, rest = dtype(slope), dtype(1.0 - slope)
    exact = (rest + s) == 1
    assert _blend_is_exact(bits, slope) == bool(exact)


def test_inplace_leaky_relu_takes_the_one_node_and_writes_the_input():
    x = ag.tensor([-2.0, 3.0, -0.5], requires_grad=True)
    y = x * 1.0
    out = F.leaky_relu(y, 0.2, inplace=True)
    assert out is y and np.allclose(y.detach().numpy(), [-0.4, 3.0, -0.1])
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.2, 1.0, 0.2])
    m = ag.nn.LeakyReLU(0.2, inplace=True)
    z = ag.tensor([-1.0, 1.0])
    assert m(z) is z and z.tolist() == pytest.approx([-0.2, 1.0])


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64]), data=st.data(),
       bounds=st.sampled_from([(-1.0, 1.0), (0.0, 6.0), (-2.0, 0.5), (0.0, 0.0)]))
def test_hardtanh_is_one_node_with_the_where_formulas(dtype, data, bounds):
    low, high = bounds
    x = data.draw(_floats(dtype))
    g = data.draw(hnp.arrays(dtype, x.shape, elements=st.floats(-10, 10, width=32)))
    want_out = np.where(x < low, dtype(low), np.where(x > high, dtype(high), x))
    want_grad = np.where((x <= low) | (x >= high), dtype(0), g)
    for reference in (False, True):
        with reference_mode(reference):
            t = ag.tensor(x, requires_grad=True)
            out = F.hardtanh(t, low, high)
            out.backward(ag.tensor(g))
        assert out.grad_fn.name() == "HardtanhBackward0"
        assert _same(out.detach().numpy(), want_out)
        # the gradient is g times a 0/1 mask: -0.0 where a negative g meets a 0
        np.testing.assert_array_equal(t.grad.numpy(), want_grad)


def test_hardtanh_gradcheck_relu6_and_integers():
    x = ag.tensor([-2.0, -0.3, 0.4, 3.0, 7.0], dtype=ag.float64, requires_grad=True)
    assert gradcheck(lambda t: F.hardtanh(t, -0.5, 2.0), (x,))
    assert gradgradcheck(lambda t: F.hardtanh(t, -0.5, 2.0) * t, (x,))
    assert F.relu6(x).grad_fn.name() == "HardtanhBackward0"
    assert F.hardtanh(ag.tensor([-3, 0, 4]), -1, 2).tolist() == [-1, 0, 2]
    y = x.detach().clone()
    assert F.hardtanh_(y) is y and y.tolist() == [-1.0, -0.3, 0.4, 1.0, 1.0]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_match_pytorch(dtype):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(500) * 3,
                        [0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, 6.0]]).astype(dtype)
    g = rng.standard_normal(x.shape).astype(dtype)
    calls = [lambda lib, t: lib.nn.functional.leaky_relu(t, 0.2),
             lambda lib, t: lib.nn.functional.leaky_relu(t * 1.0, 0.01, inplace=True),
             lambda lib, t: lib.nn.functional.hardtanh(t),
             lambda lib, t: lib.nn.functional.relu6(t),
             lambda lib, t: lib.clamp(t, -0.5, 2.0),
             lambda lib, t: lib.clamp(t, min=0.0),
             lambda lib, t: t.clamp(max=-0.0)]
    relu_out, relu_grads = [], []
    for lib in (ag, torch):
        t = lib.tensor(x, requires_grad=True)
        out = lib.nn.functional.relu(t)
        out.backward(lib.tensor(g))
        relu_out.append(out.detach().numpy())
        relu_grads.append(t.grad.numpy())
    np.testing.assert_array_equal(*relu_out)  # (a -0.0 input: PyTorch's -0.0, or 0.0)
    np.testing.assert_array_equal(*relu_grads)
    for call in calls:
        got = []
        for lib in (ag, torch):
            t = lib.tensor(x, requires_grad=True)
            out = call(lib, t)
            out.backward(lib.tensor(g))
            got.append((out.detach().numpy(), t.grad.numpy()))
        (o1, g1), (o2, g2) = got
        assert _same(o1, o2)
        np.testing.assert_array_equal(g1, g2)  # (masked gradients: zero signs may differ)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_clamp_keeps_a_zero_input_at_a_zero_bound_as_pytorch(dtype):
    """``clamp(0.0, max=-0.0)`` is 0.0 and ``clamp(-0.0, min=0.0)`` is -0.0 (PyTorch compares
    strictly; NumPy's clip answered the bound)."""
    x = np.array([0.0, -0.0, 1.0, -1.0], dtype=dtype)
    assert np.signbit(ag.tensor(x).clamp(max=-0.0).numpy()).tolist() == [False, True, True, True]
    assert np.signbit(ag.tensor(x).clamp(min=0.0).numpy()).tolist() == [False, True, False, False]
    assert np.signbit(ag.tensor(x).clamp(-0.0, 0.0).numpy()).tolist() == [False, True, False, True]
    torch = pytest.importorskip("torch")
    for low, high in ((None, -0.0), (0.0, None), (-0.0, 0.0)):
        want = torch.tensor(x).clamp(low, high)
        assert np.signbit(ag.tensor(x).clamp(low, high).numpy()).tolist() == \
            torch.signbit(want).tolist()


def test_a_zero_input_above_a_bound_still_takes_it():
    x = ag.tensor([0.0, -0.0])
    assert x.clamp(0.0, -2.0).tolist() == [-2.0, -2.0]  # low > high: high wins
    assert np.signbit(x.clamp(0.5, -0.0).numpy()).tolist() == [True, True]
    assert x.clamp(min=1.0).tolist() == [1.0, 1.0]
