"""The differential tests (tests/differential) with inputs of the new dtypes: a random call of
the op surface on PyTorch and on arraygrad must agree (values, dtypes, error classes) wherever
it agrees for the dtype arraygrad had before (int32 for the integers, float32 for bfloat16):
the new dtypes bring no disagreement of their own. Skipped without PyTorch."""

import random
import warnings

import pytest

import arraygrad as ag
from tests.differential.calls import SPECS
from tests.differential.compare import run_one

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# where PyTorch refuses a low-precision dtype and arraygrad computes in float32 (a superset,
# docs/differences.md): its linalg kernels, and matrix_exp's bfloat16 squaring overflowing
REFUSED_BY_PYTORCH = ("Low precision dtypes not supported", "not implemented for 'BFloat16'",
                      "linalg.matrix_exp")


def _new_disagreements(dtype, baseline, seed, n):
    r = random.Random(seed)
    found = []
    for i in range(n):
        spec = SPECS[r.randrange(len(SPECS))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ok, detail = run_one(spec, seed * 100003 + i, torch, ag, dtype)
            if ok or any(text in detail for text in REFUSED_BY_PYTORCH):
                continue
            if not run_one(spec, seed * 100003 + i, torch, ag, baseline)[0]:
                continue  # the same disagreement as before the new dtypes
        found.append(detail)
    return found


@needs_torch
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16"])
def test_small_integers_agree_where_int32_does(dtype):
    found = _new_disagreements(dtype, "int32", 21, 300)
    assert not found, "\n---\n".join(found[:5])


@needs_torch
def test_bfloat16_agrees_where_float32_does():
    found = _new_disagreements("bfloat16", "float32", 22, 400)
    assert not found, "\n---\n".join(found[:5])


# where PyTorch computes for complex tensors what arraygrad does not take (a rule that does not
# declare complex support, refused by the recorder naming the op; the real-only linalg
# functions, logaddexp, logcumsumexp: docs/complex.md), and where PyTorch refuses the gradient
# of a composite whose parts arraygrad differentiates (silu, nan_to_num: docs/complex.md)
NO_COMPLEX_RULE = ("does not declare complex support", "complex tensors are not supported here",
                   "does not support automatic differentiation for outputs with complex dtype")


@needs_torch
@pytest.mark.parametrize("dtype, baseline", [("complex128", "float64"), ("complex64", "float32")])
def test_complex_agrees_where_real_does(dtype, baseline):
    found = [d for d in _new_disagreements(dtype, baseline, 23, 400)
             if not any(text in d for text in NO_COMPLEX_RULE)]
    assert not found, "\n---\n".join(found[:5])
