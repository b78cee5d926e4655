"""``Tensor.T``: the dimensions reversed, recorded as PyTorch's ``PermuteBackward0`` (one call
to the permutation, without ``permute``'s argument checks), with PyTorch's deprecation warning,
once per process, on tensors that are not 2-D."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import arraygrad as ag


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (5,), ()])
def test_values_gradient_and_node(shape):
    x = ag.tensor(np.arange(float(np.prod(shape))).reshape(shape), requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (once per process: tested in a fresh one below)
        y = x.T
    assert y.shape == shape[::-1]
    np.testing.assert_array_equal(y.detach().numpy(), x.detach().numpy().T)
    assert type(y.grad_fn).__name__ == "PermuteBackward0"
    (y * ag.tensor(np.arange(float(np.prod(shape))).reshape(shape[::-1]))).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(),
                                  np.arange(float(np.prod(shape))).reshape(shape[::-1]).T)
    assert y.stride() == x.permute(*range(len(shape) - 1, -1, -1)).stride()


_WARNINGS = textwrap.dedent("""
    import warnings
    import {lib} as lib
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for shape in [(), (3,), (2, 3), (2, 3, 4), (), (3,)]:
            lib.ones(shape).T
    print([str(w.message).split(" (Triggered")[0] for w in caught])
""")


def _warnings(lib):
    return subprocess.run([sys.executable, "-c", _WARNINGS.format(lib=lib)], capture_output=True,
                          text=True, check=True, timeout=300).stdout


def test_deprecation_warnings_once_per_process():
    got = _warnings("arraygrad")
    assert got.count("deprecated") == 2  # one for 0-d, one for the other ranks
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    assert got == _warnings(torch.__name__)
