"""NumPy scalars as operands behave as the Python numbers of their kind, as in PyTorch:
``t / np.sqrt(d)`` (a ``np.float64``, a float subclass that carries NumPy's ``dtype``) keeps
the tensor's float32, ``np.int64(3) + int32 tensor`` stays int32, and a NumPy scalar on the
left (``np.float64(2) * t``) defers to the tensor (``__array_priority__``), giving a tensor
rather than a NumPy array."""

from __future__ import annotations

import operator

import numpy as np
import pytest

import arraygrad as ag

torch = pytest.importorskip("torch", reason="values compared with PyTorch's")

SCALARS = [np.float64(2.5), np.float32(2.5), np.int64(3), np.int32(3), np.float16(0.5)]
DTYPES = ["float32", "float64", "int32", "int64"]
OPS = [operator.add, operator.sub, operator.mul, operator.truediv]


@pytest.mark.parametrize("scalar", SCALARS, ids=lambda s: type(s).__name__)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", OPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("left", [False, True], ids=["tensor_op_scalar", "scalar_op_tensor"])
def test_a_numpy_scalar_operand_gives_pytorchs_dtype_and_values(scalar, dtype, op, left):
    ours_t = ag.arange(1, 4).to(getattr(ag, dtype))
    theirs_t = torch.arange(1, 4).to(getattr(torch, dtype))
    ours = op(scalar, ours_t) if left else op(ours_t, scalar)
    theirs = op(scalar, theirs_t) if left else op(theirs_t, scalar)
    assert isinstance(ours, ag.Tensor)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_attention_scaling_by_np_sqrt_keeps_float32():
    scores = ag.ones(2, 3, 3)
    assert (scores / np.sqrt(64)).dtype == ag.float32
