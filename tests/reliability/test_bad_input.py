"""Random bad calls at the public API: each raises PyTorch's error class with a message naming
the op and the offending shapes/dtypes/devices, and leaves tensors, grads and the graph as they
were (a later correct backward gives the right gradients). The case count is printed."""

from __future__ import annotations

import math
import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import arraygrad as ag
from arraygrad import nn

from reliability_helpers import report, state_of

CASES = {"count": 0}
BINARY = {"add": ag.add, "sub": ag.sub, "mul": ag.mul, "div": ag.div, "pow": ag.pow,
          "maximum": ag.maximum, "minimum": ag.minimum, "remainder": ag.remainder,
          "atan_like_where": lambda a, b: ag.where(a > 0, a, b)}

shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def _incompatible(a, b) -> bool:
    for x, y in zip(reversed(a), reversed(b)):
        if x != y and x != 1 and y != 1:
            return True
    return False


def _then_backward_still_right(x, y):
    """A correct backward after the failure gives the analytic gradient of sum(x*y)."""
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == ag.ones_like(x).tolist()


def _expect(error, pattern, fn, *tensors):
    before = state_of(*tensors)
    with pytest.raises(error) as info:
        fn()
    assert re.search(pattern, str(info.value)), str(info.value)
    assert state_of(*tensors) == before
    CASES["count"] += 1
    return info.value


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(BINARY)), shapes, shapes)
def test_mismatched_shapes_for_binary_ops(op, sa, sb):
    if not _incompatible(sa, sb):
        return
    a = ag.rand(*sa, requires_grad=True) + 0.5
    b = ag.rand(*sb) + 0.5
    err = _expect(RuntimeError, r"\[", lambda: BINARY[op](a, b), a, b)
    text = str(err)
    assert str(list(sa)) in text and str(list(sb)) in text, text
    a.sum().backward()  # the graph of a is intact


@settings(max_examples=40, deadline=None)
@given(shapes, shapes)
def test_matmul_and_cat_shape_errors(sa, sb):
    a = ag.rand(*sa, 3, requires_grad=True)
    b = ag.rand(*sb, 4, 5)  # inner dimensions 3 and 4 differ
    _expect(RuntimeError, r"matmul.*inner dimensions 3 and 4", lambda: a @ b, a, b)
    if len(sa) == len(sb) and sa[1:] != sb[1:]:
        x, y = ag.rand(*sa, requires_grad=True), ag.rand(*sb)
        _expect(RuntimeError, r"cat.*Sizes of tensors must match", lambda: ag.cat([x, y]), x, y)


def test_dtype_errors():
    _expect(RuntimeError, r"floating point.*int64", lambda: ag.tensor([1, 2], requires_grad=True))
    b = ag.tensor([True, False])
    _expect(RuntimeError, r"sub.*bool", lambda: b - b, b)
    _expect(RuntimeError, r"neg.*bool", lambda: -b, b)
    f = ag.ones(2, 2, requires_grad=True)
    d = ag.ones(2, 2, dtype=ag.float64)
    _expect(RuntimeError, r"matmul.*float32.*float64", lambda: f @ d, f, d)
    i = ag.tensor([1, 2])
    _expect(RuntimeError, r"add_.*float32.*int64", lambda: i.add_(ag.tensor([0.5, 0.5])), i)
    _expect(RuntimeError, r"mean.*Long|mean.*int64", lambda: i.mean(), i)


def test_mixed_devices():
    names = {row.name for row in ag.backends.available() if row.available}
    other = "strict" if "strict" in names else ("dummy" if "dummy" in names else None)
    if other is None:
        pytest.skip("no second backend installed")
    a = ag.ones(2, requires_grad=True)
    b = ag.ones(2, device=other)
    for fn in (lambda: a + b, lambda: a * b, lambda: ag.cat([a, b]), lambda: a @ b):
        _expect(RuntimeError, rf"cpu.*{other}|{other}.*cpu", fn, a, b)


@settings(max_examples=60, deadline=None)
@given(shapes, st.integers(-12, 12))
def test_index_errors(shape, index):
    x = ag.rand(*shape, requires_grad=True)
    if -shape[0] <= index < shape[0]:
        return
    _expect(IndexError, rf"index {index} is out of bounds.*size {shape[0]}", lambda: x[index], x)
    _expect(IndexError, r"out of bounds", lambda: x[ag.tensor([0, index])], x)
    _expect(IndexError, r"Dimension out of range", lambda: x.sum(dim=len(shape) + 1), x)
    _expect(IndexError, r"index", lambda: x[1.5], x)


def test_negative_and_zero_sizes():
    _expect(RuntimeError, r"negative dimension -1", lambda: ag.zeros(2, -1))
    _expect(RuntimeError, r"negative dimension", lambda: ag.randn(-3))
    x = ag.ones(2, 3, requires_grad=True)
    _expect(RuntimeError, r"shape '\[4, -1\]' is invalid for input of size 6",
            lambda: x.reshape(4, -1), x)
    assert ag.zeros(0, 3).shape == (0, 3)  # zero is fine
    CASES["count"] += 1


def test_nan_and_inf_inputs_propagate_without_errors():
    x = ag.tensor([float("nan"), float("inf"), -float("inf"), 1.0], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = (x.exp() + x.tanh() + x.relu()).sum()
        y.backward()
    assert math.isnan(y.item()) and x.grad.shape == (4,)
    CASES["count"] += 1


def test_backward_with_bad_gradient():
    x = ag.ones(3, requires_grad=True)
    y = x * 2
    _expect(RuntimeError, r"Mismatch in shape.*\[2\].*\[3\]", lambda: y.backward(ag.ones(2)), x, y)
    _expect(RuntimeError, r"int64.*float32", lambda: y.backward(ag.tensor([1, 1, 1])), x, y)
    _expect(RuntimeError, r"scalar outputs", lambda: y.backward(), x, y)
    y.backward(ag.ones(3))
    assert x.grad.tolist() == [2., 2., 2.]


def test_hook_returning_wrong_shape_changes_nothing():
    x = ag.ones(3, requires_grad=True)
    w = ag.ones(3, requires_grad=True)
    y = x * w
    z = (y * y).sum()
    handle = y.register_hook(lambda g: g[:2])
    _expect(RuntimeError, r"changed the size.*\[3\].*\[2\]", z.backward, x, w, y, z)
    assert x.grad is None and w.grad is None
    handle.remove()
    z.backward()  # the graph was not freed by the failed pass
    assert x.grad.tolist() == [2., 2., 2.]


def test_custom_function_bad_backward_changes_nothing():
    class WrongCount(ag.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return (g,)

    class WrongShape(ag.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return ag.ones(7)

    a = ag.ones(3, requires_grad=True)
    b = ag.ones(3, requires_grad=True)
    out = (WrongCount.apply(a, b) + a).sum()
    _expect(RuntimeError, r"WrongCountBackward returned an incorrect number of gradients "
            r"\(expected 2, got 1\)", out.backward, a, b)
    out2 = WrongShape.apply(a).sum()
    _expect(RuntimeError, r"WrongShapeBackward returned an invalid gradient at index 0 - got "
            r"\[7\] but expected shape compatible with \[3\]", out2.backward, a)
    (a * 3).sum().backward()
    assert a.grad.tolist() == [3., 3., 3.]


def test_optimizer_bad_params():
    w = ag.ones(2, requires_grad=True)
    nonleaf = w * 2
    _expect(ValueError, r"non-leaf", lambda: ag.optim.SGD([nonleaf], lr=0.1), w)
    with pytest.raises((ValueError, UserWarning)):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ag.optim.SGD([w, w], lr=0.1)
    CASES["count"] += 1
    _expect(ValueError, r"more than one parameter group|appear in more than one",
            lambda: ag.optim.SGD([{"params": [w]}, {"params": [w]}], lr=0.1), w)


def test_load_state_dict_bad_keys_and_shapes():
    model = nn.Linear(3, 2)
    before = {k: v.tolist() for k, v in model.state_dict().items()}
    bad_shape = {"weight": ag.zeros(3, 3), "bias": ag.zeros(2)}
    _expect(RuntimeError, r"size mismatch for weight.*\[3, 3\].*\[2, 3\]",
            lambda: model.load_state_dict(bad_shape))
    missing = {"weight": ag.zeros(2, 3)}
    _expect(RuntimeError, r'Missing key\(s\) in state_dict: "bias"',
            lambda: model.load_state_dict(missing))
    extra = {"weight": ag.zeros(2, 3), "bias": ag.zeros(2), "gamma": ag.zeros(1)}
    _expect(RuntimeError, r'Unexpected key\(s\) in state_dict: "gamma"',
            lambda: model.load_state_dict(extra))
    assert {k: v.tolist() for k, v in model.state_dict().items()} == before


def test_report_case_count(capsys):
    # runs last in this module (pytest keeps file order): the count of cases tried
    report("bad-input cases tried", str(CASES["count"]))
    assert CASES["count"] > 100
