"""In-place arithmetic of float16/bfloat16 tensors with a number or a scale (``mul_(0.1)``,
``add_(g, alpha=-lr)``, an optimizer's update) computes in float32 and rounds once, as
PyTorch does, on the fast path as on the reference one. The fast path once applied the
array's own operator, rounding the number to float16 first: ``mul_(0.1)`` of 3.0 gave
0.2998 where PyTorch gives 0.30005."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops.rule import reference_mode

_OPS = {
    "mul_": lambda t, o, s: t.mul_(s),
    "div_": lambda t, o, s: t.div_(s),
    "add_": lambda t, o, s: t.add_(s),
    "sub_": lambda t, o, s: t.sub_(s),
    "add_alpha": lambda t, o, s: t.add_(o, alpha=s),
    "sub_alpha": lambda t, o, s: t.sub_(o, alpha=s),
    "imul": lambda t, o, s: t.__imul__(s),
    "mul_tensor": lambda t, o, s: t.mul_(o),
}


def _run(dtype_name, op, values, others, scalar):
    dtype = getattr(ag, dtype_name)
    t = ag.tensor(values, dtype=dtype)
    o = ag.tensor(others, dtype=dtype)
    with ag.no_grad():
        _OPS[op](t, o, scalar)
    return t.tolist(), t._version


finite = st.floats(-100, 100, allow_nan=False, width=16)


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(["float16", "bfloat16"]), st.sampled_from(sorted(_OPS)),
       st.lists(finite, min_size=1, max_size=6).flatmap(
           lambda v: st.tuples(st.just(v), st.lists(finite, min_size=len(v), max_size=len(v)))),
       st.sampled_from([0.1, -0.0137, 3.3, 7, 1e-3]))
def test_the_fast_path_computes_what_the_reference_does(dtype_name, op, pair, scalar):
    values, others = pair
    got = _run(dtype_name, op, values, others, scalar)
    with reference_mode():
        want = _run(dtype_name, op, values, others, scalar)
    assert got == want


def test_the_failing_case_and_pytorch():
    assert _run("float16", "mul_", [1.0, 2.0, 3.0], [0, 0, 0], 0.1)[0][2] == 0.300048828125
    torch = pytest.importorskip("torch")
    cases = [("mul_", 0.1), ("div_", 3.3), ("add_alpha", -0.0137), ("sub_", 0.1)]
    for dtype_name in ("float16", "bfloat16"):
        for op, s in cases:
            values, others = [1.0, 2.0, 3.0, -7.25], [0.0123, -0.77, 0.333, 5.5]
            t = torch.tensor(values, dtype=getattr(torch, dtype_name))
            _OPS[op](t, torch.tensor(others, dtype=getattr(torch, dtype_name)), s)
            assert _run(dtype_name, op, values, others, s)[0] == t.tolist(), (dtype_name, op)
