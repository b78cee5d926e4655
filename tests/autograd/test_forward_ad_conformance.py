"""Forward-mode rules checked on every conformance case, in float64.

For each case of ``arraygrad.conformance.cases`` whose ops all have forward-mode rules:
the JVP (``forward_ad``) equals the central-difference directional derivative, and
``<J v, u> == <v, J^T u>`` against reverse mode. A case reaching an op without a rule is
skipped, naming the op (the NotImplementedError forward mode raises).
"""

from __future__ import annotations

import pytest

import arraygrad as ag
from arraygrad.autograd import forward_ad as fwad
from arraygrad.conformance import InputMaker
from arraygrad.conformance.cases import BUILTIN_CASES

F64 = ag.float64
EPS = 1e-6


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _float_outputs(out):
    return [o for o in _as_tuple(out) if isinstance(o, ag.Tensor) and o.dtype.is_floating_point]


def _setup(case):
    inputs = tuple(case.inputs(InputMaker("cpu", F64, seed=3)))
    gen = ag.Generator().manual_seed(7)
    tangents = [ag.randn(tuple(x.shape), dtype=F64, generator=gen)
                if isinstance(x, ag.Tensor) and x.requires_grad else None for x in inputs]
    return inputs, tangents


def _jvp(case, inputs, tangents):
    """The primal outputs and their tangents (zeros for an output without one)."""
    with fwad.dual_level():
        duals = [x if t is None else fwad.make_dual(x, t) for x, t in zip(inputs, tangents)]
        outs = _float_outputs(case.fn(*duals))
        found = []
        for o in outs:
            t = fwad.unpack_dual(o).tangent
            found.append(ag.zeros_like(o) if t is None else t.detach().clone())
    return [o.detach() for o in outs], found


def _shifted(case, inputs, tangents, scale):
    with ag.no_grad():
        moved = [x if t is None else (x.detach() + scale * t) for x, t in zip(inputs, tangents)]
        return [o.detach() for o in _float_outputs(case.fn(*moved))]


def _run_or_skip(fn, *args):
    try:
        return fn(*args)
    except NotImplementedError as exc:
        pytest.skip(f"no forward-mode rule: {exc}")


_CASES = [pytest.param(c, id=c.name) for c in BUILTIN_CASES if "grad" in c.checks]


@pytest.mark.parametrize("case", _CASES)
def test_jvp_matches_finite_differences_and_vjp(case):
    inputs, tangents = _setup(case)
    if all(t is None for t in tangents):
        pytest.skip("no differentiable input")
    primals, jv = _run_or_skip(_jvp, case, inputs, tangents)
    plus = _shifted(case, inputs, tangents, EPS)
    minus = _shifted(case, inputs, tangents, -EPS)
    for p, t, hi, lo in zip(primals, jv, plus, minus):
        assert tuple(t.shape) == tuple(p.shape)
        numeric = (hi - lo) / (2 * EPS)
        assert ag.allclose(t, numeric, rtol=1e-4, atol=1e-5), (case.name, t, numeric)
    # <J v, u> == <v, J^T u>
    leaves = [x for x, t in zip(inputs, tangents) if t is not None]
    outs = _float_outputs(case.fn(*inputs))
    diff = [(i, o) for i, o in enumerate(outs) if o.requires_grad]
    if not diff:
        return
    gen = ag.Generator().manual_seed(11)
    us = [ag.randn(tuple(o.shape), dtype=F64, generator=gen) for _, o in diff]
    grads = ag.autograd.grad([o for _, o in diff], leaves, us, allow_unused=True)
    lhs = sum(float((jv[i] * u).sum()) for (i, _), u in zip(diff, us))
    rhs = sum(0.0 if g is None else float((g * t).sum())
              for g, t in zip(grads, [t for t in tangents if t is not None]))
    assert abs(lhs - rhs) <= 1e-8 * (1 + abs(lhs)), (case.name, lhs, rhs)
