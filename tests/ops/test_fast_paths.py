"""The fast paths (``ops/fast.py``, rules' ``first_order``) agree with the general path.

Each case runs twice: as shipped, and in reference mode (``rule.reference_mode()``, what
``ARRAYGRAD_REFERENCE=1`` gives), where the general path computes it. Values, dtypes, node names, edges,
first- and second-order gradients and the freed-graph error must match.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops import fast
from arraygrad.ops.rule import reference_mode

OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
}
SCALARS = [1.0, -2.5, 0.5, 3, -1, 0.0, -0.0, 1e30, float("inf"), float("nan")]
DTYPES = {"float32": (ag.float32, np.float32), "float64": (ag.float64, np.float64),
          "float16": (ag.float16, np.float16)}


def _edges(t):
    """The edge structure of ``t``'s node: which inputs have an edge, and to which node kind."""
    if t.grad_fn is None:
        return None
    return tuple(None if fn is None else (type(fn).__name__, nr)
                 for fn, nr in t.grad_fn.next_functions)


def _run(program, fast: bool, monkeypatch):
    """``program()`` with the fast path on or off; its result as plain data."""
    with reference_mode(not fast):
        return program()


def _same(x, y):
    if isinstance(x, np.ndarray):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(x, y)  # NaN equals NaN here
        assert (np.signbit(x) == np.signbit(y)).all()  # -0.0 stays -0.0
    elif isinstance(x, (tuple, list)):
        assert len(x) == len(y)
        for a, b in zip(x, y):
            _same(a, b)
    else:
        assert x == y


def _program(op, values, scalar, scalar_first, dtype, second_order):
    ag_dtype, _ = DTYPES[dtype]

    def run():
        x = ag.tensor(values, dtype=ag_dtype, requires_grad=True)
        h = x * 1.0 if second_order else x  # a non-leaf operand too
        out = OPS[op](scalar, h) if scalar_first else OPS[op](h, scalar)
        seen = [out.detach().numpy().copy(), str(out.dtype), out.grad_fn.name(), _edges(out)]
        with np.errstate(all="ignore"):
            (gx,) = ag.autograd.grad(out.sum(), x, create_graph=second_order)
            seen.append(gx.detach().numpy().copy())
            if second_order and gx.requires_grad:
                (ggx,) = ag.autograd.grad((gx * gx).sum(), x, allow_unused=True)
                seen.append(None if ggx is None else ggx.numpy().copy())
        return seen
    return run


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("scalar", SCALARS, ids=repr)
@pytest.mark.parametrize("scalar_first", [False, True], ids=["tensor_op_scalar", "scalar_op_tensor"])
@pytest.mark.parametrize("dtype", list(DTYPES))
def test_tensor_with_scalar_matches_general_path(op, scalar, scalar_first, dtype, monkeypatch):
    values = [0.5, -1.25, 2.0, 0.0]
    prog = _program(op, values, scalar, scalar_first, dtype, second_order=dtype != "float16")
    with np.errstate(all="ignore"):
        _same(_run(prog, True, monkeypatch), _run(prog, False, monkeypatch))


def _pair_program(op, a_values, b_values, needs, dtype):
    ag_dtype, _ = DTYPES[dtype]

    def run():
        a = ag.tensor(a_values, dtype=ag_dtype, requires_grad=needs[0])
        b = ag.tensor(b_values, dtype=ag_dtype, requires_grad=needs[1])
        ha, hb = (a * 1.0, b * 1.0)
        out = OPS[op](ha, hb)
        seen = [out.detach().numpy().copy(), str(out.dtype), out.grad_fn.name(), _edges(out)]
        wrt = [t for t, n in zip((a, b), needs) if n]
        grads = ag.autograd.grad((out * out).sum(), wrt, create_graph=True)
        seen.append([g.detach().numpy().copy() for g in grads])
        second = ag.autograd.grad(sum(g.sum() for g in grads), wrt, allow_unused=True)
        seen.append([None if g is None else g.numpy().copy() for g in second])
        return seen
    return run


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=3),
       op=st.sampled_from(sorted(OPS)),
       needs=st.sampled_from([(True, True), (True, False), (False, True)]),
       dtype=st.sampled_from(["float32", "float64"]),
       seed=st.integers(0, 2**16))
def test_tensors_of_one_shape_match_general_path(shape, op, needs, dtype, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.5, 2.0, shape).tolist()
    b = rng.uniform(0.5, 2.0, shape).tolist()
    prog = _pair_program(op, a, b, needs, dtype)
    with pytest.MonkeyPatch.context() as mp:
        fast = _run(prog, True, mp)
        general = _run(prog, False, mp)
    for x, y in zip(fast, general):
        if isinstance(x, list) and x and isinstance(x[0], np.ndarray):
            for p, q in zip(x, y):  # the double-backward sums may round differently
                np.testing.assert_allclose(p, q, rtol=1e-5)
        else:
            _same(x, y)


@pytest.mark.parametrize("op", list(OPS))
def test_second_backward_raises_like_general_path(op, monkeypatch):
    """``*`` and ``/`` save their number (as PyTorch does), so a second backward raises."""
    outcomes = []
    for fast in (True, False):
        with reference_mode(not fast):
            x = ag.tensor([1.0, 2.0], requires_grad=True)
            y = OPS[op](x + 0.5, 2.0).sum()
            y.backward()
            try:
                y.backward()
                outcomes.append("ok")
            except RuntimeError as exc:
                outcomes.append(str(exc)[:40])
    assert outcomes[0] == outcomes[1]
    assert (outcomes[0] != "ok") == (op in ("mul", "div"))


def _taken(monkeypatch, program) -> int:
    """How many times ``fast.binary`` answered (did not decline) while ``program`` ran."""
    answered = []
    real = fast.binary

    def spy(a, b, spec):
        out = real(a, b, spec)
        answered.append(out is not None)
        return out

    monkeypatch.setattr(fast, "binary", spy)
    program()
    monkeypatch.setattr(fast, "binary", real)
    return sum(answered)


def test_fast_path_really_taken(monkeypatch):
    """Guard against the fast path silently never running, and against it running where
    it must not (mixed dtypes) or in reference mode. Operands of one dtype that broadcast
    take it (the recorder sums each gradient back to its input's shape)."""
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    with reference_mode(False):  # on, also in a run under ARRAYGRAD_REFERENCE=1
        assert _taken(monkeypatch, lambda: (x + 1.0, 2.0 * x, x * x)) == 3
        assert _taken(monkeypatch, lambda: x * ag.tensor([[1.0], [2.0]])) == 1
        assert _taken(monkeypatch, lambda: x + ag.tensor([1.0, 2.0], dtype=ag.float64)) == 0
    with reference_mode():
        assert _taken(monkeypatch, lambda: (x + 1.0, x * x)) == 0
    # the fast path links the rule's own node class: PyTorch's name, the same class
    assert type((x * 2.0).grad_fn) is type((x * ag.tensor([[1.0], [2.0]])).grad_fn)
    assert (x * 2.0).grad_fn.name() == "MulBackward0"


def test_inputs_modified_in_place_are_caught():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([3.0, 4.0], requires_grad=True)
    ha, hb = a * 1.0, b * 1.0
    out = ha * hb
    with ag.no_grad():
        hb.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_scalar_cache_keeps_signed_zero_and_stays_bounded():
    x = ag.tensor([1.0, -1.0])
    assert np.signbit((x * -0.0).numpy()).tolist() == [True, False]
    assert np.signbit((x * 0.0).numpy()).tolist() == [False, True]
    cache = x._backend.scalar_operands
    for _ in range(2000):
        x + float("nan")  # a new NaN object each time: never equal to a cached key
    assert len(cache) <= 512
    assert math.isnan((x + float("nan")).numpy()[0])


@pytest.mark.parametrize("name", ["tanh", "sigmoid", "relu", "log_softmax"])
def test_activation_first_order_array_formula_matches_recorded_op(name):
    """First-order backward uses the array formula; under create_graph the recorded op.
    Both give the same gradient."""
    rng = np.random.default_rng(0)
    values = rng.standard_normal((5, 10))
    x = ag.tensor(values, requires_grad=True)
    y = x.log_softmax(1) if name == "log_softmax" else getattr(x, name)()
    g = ag.tensor(rng.standard_normal((5, 10)))
    (arrays,) = ag.autograd.grad(y, x, g, retain_graph=True)
    (recorded,) = ag.autograd.grad(y, x, g, create_graph=True)
    np.testing.assert_allclose(arrays.numpy(), recorded.detach().numpy(), rtol=1e-12)
    assert type(y.grad_fn)._rule.first_order is not None
    with reference_mode():  # the reference takes the recorded formula in plain backward too
        (reference,) = ag.autograd.grad(y, x, g, retain_graph=True)
    np.testing.assert_allclose(arrays.numpy(), reference.numpy(), rtol=1e-12)


def test_activation_output_modified_in_place_is_caught():
    x = ag.tensor([0.5, 1.0], requires_grad=True)
    y = x.tanh()
    with ag.no_grad():
        y.mul_(2.0)
    with pytest.raises(RuntimeError, match="output 0 of TanhBackward0"):
        y.sum().backward()


def test_tanh_backward_keeps_an_infinite_gradient_infinite():
    """``g * (1 - y*y)``, not ``g - g*y*y``: the latter turned inf into NaN (a bug caught by
    the in-place program test while rewriting the formula on arrays)."""
    x = ag.tensor([0.5, -0.25], dtype=ag.float64, requires_grad=True)
    y = x.tanh()
    (gx,) = ag.autograd.grad(y, x, ag.tensor([float("inf"), float("-inf")], dtype=ag.float64))
    assert gx.tolist() == [float("inf"), float("-inf")]
