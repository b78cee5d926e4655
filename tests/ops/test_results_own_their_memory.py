"""An op that PyTorch documents as returning a new tensor must not hand back memory of its input.

NumPy returns views where PyTorch copies (``np.flip`` is a view), and a result that secretly
shares its input's memory lets an in-place op on the result change the input: ``flip(x).add_(1)``
used to add one to ``x``. Views PyTorch makes are tracked (``_base``) and are not in question here.
"""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.conformance.case import InputMaker
from arraygrad.conformance.cases import BUILTIN_CASES


def _shares(a: ag.Tensor, b: ag.Tensor) -> bool:
    return bool(np.shares_memory(np.asarray(a._data), np.asarray(b._data)))


def _secret_aliases(out, inputs) -> list:
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs
            if isinstance(o, ag.Tensor) and o._base is None and not any(o is i for i in inputs)
            and any(isinstance(i, ag.Tensor) and _shares(o, i) for i in inputs)]


@pytest.mark.parametrize("case", BUILTIN_CASES, ids=lambda c: c.name)
def test_no_conformance_case_returns_its_input_memory(case):
    inputs = case.inputs(InputMaker("cpu", ag.float64))
    assert _secret_aliases(case.fn(*inputs), inputs) == []


@pytest.mark.parametrize("call", [
    lambda x: ag.flip(x, [0]), lambda x: ag.flip(x, []), lambda x: x.flip(0, 1),
    lambda x: x.fliplr(), lambda x: x.flipud(), lambda x: x.rot90(2), lambda x: x.rot90(1),
    lambda x: x.rot90(3), lambda x: x.rot90(0),
])
def test_an_in_place_op_on_a_flipped_tensor_leaves_the_input(call):
    x = ag.arange(6.0).reshape(2, 3)
    out = call(x)
    out.add_(1)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    assert float(out.sum()) == 21.0
