"""Every conformance case run in bfloat16 (and float16) on the NumPy backend: the outputs
keep the low precision wherever the float32 run gives float32 (no silent widening next to
Python numbers or in the library's linalg), and their values stay close to the float32 run."""

import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.conformance.cases import BUILTIN_CASES
from arraygrad.conformance.compare import flat_outputs
from arraygrad.conformance.op_checks import _inputs

pytestmark = pytest.mark.skipif(
    ag.bfloat16 not in ag.backends.get_backend("numpy").supported_dtypes(),
    reason="the numpy backend has no bfloat16 here (ml_dtypes missing)")

# cases whose constant operands are float32 tensors: float32 is PyTorch's promotion there
PROMOTED_BY_CONSTANTS = {"margin_ranking_loss/margin", "soft_margin_loss/mean"}
# PyTorch's own low-precision result is as far from float32 (|a|^2 - 2 a.b + |b|^2 cancels;
# tests/dtypes/test_bfloat16_ops.py compares the values with PyTorch's)
LOSSY_AS_PYTORCH = {"cdist/mm"}
# (the complex cases: no complex type of bfloat16 or float16 in arraygrad)
CASES = [c for c in BUILTIN_CASES if "dtypes" in c.checks and "complex" not in c.tags]


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_cases_keep_the_low_precision(dtype):
    low = getattr(ag, dtype)
    bad = {}
    for case in CASES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                out = flat_outputs(case.fn(*_inputs(case, "cpu", low)))
                ref = flat_outputs(case.fn(*_inputs(case, "cpu", ag.float32)))
            except Exception as e:  # noqa: BLE001 - reported below
                bad[case.name] = f"{type(e).__name__}: {e}"
                continue
        for k, (o, r) in enumerate(zip(out, ref)):
            wanted = low if r.dtype is ag.float32 and case.name not in PROMOTED_BY_CONSTANTS \
                else r.dtype
            if o.dtype is not wanted:
                bad[case.name] = f"output {k} is {o.dtype}, expected {wanted}"
            elif r.dtype is ag.float32 and case.name not in LOSSY_AS_PYTORCH:
                a, b = o.detach().float().numpy(), r.detach().numpy()
                if not np.allclose(a, b, rtol=5e-2, atol=5e-2, equal_nan=True):
                    bad[case.name] = f"output {k} off the float32 run by {np.nanmax(abs(a - b))}"
    assert not bad, bad
