"""gradcheck and gradgradcheck for every differentiable op, from the shared case table.

The table lives in ``arraygrad.conformance.cases`` (one module per op family)
so that every backend's conformance run checks the same cases; here it runs
on the default CPU backend in float64.
"""

from __future__ import annotations

import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.conformance import InputMaker
from arraygrad.conformance.cases import BUILTIN_CASES

F64 = ag.float64


def _params(kind):
    return [pytest.param(c, id=c.name) for c in BUILTIN_CASES if kind in c.checks]


def _inputs(case, seed):
    return tuple(case.inputs(InputMaker("cpu", F64, seed=seed)))


@pytest.mark.parametrize("case", _params("grad"))
def test_gradcheck(case):
    inputs = _inputs(case, 0)
    assert all(x.dtype in (F64, ag.complex128) for x in inputs if x.requires_grad)
    assert gradcheck(case.fn, inputs)


@pytest.mark.parametrize("case", _params("double_grad"))
def test_gradgradcheck(case):
    assert gradgradcheck(case.fn, _inputs(case, 1))
