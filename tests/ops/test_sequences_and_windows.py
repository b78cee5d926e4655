"""``logspace``, ``range`` and the window functions: PyTorch's values (to a few float ulps:
its vectorized ``cos``/``pow`` round differently), dtypes, the ``periodic=True`` default,
factory keywords and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

WINDOWS = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


@needs_torch
@pytest.mark.parametrize("name", WINDOWS)
@pytest.mark.parametrize("length", [0, 1, 2, 5, 8, 31, 400])
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_windows_match_torch(name, length, periodic, dtype):
    ours = getattr(ag, name)(length, periodic, dtype=getattr(ag, dtype)).numpy()
    theirs = getattr(torch, name)(length, periodic, dtype=getattr(torch, dtype)).numpy()
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=8 * np.finfo(dtype).eps)


@needs_torch
def test_window_defaults_and_parameters_match_torch():
    pairs = [(ag.hann_window(6), torch.hann_window(6)),
             (ag.hamming_window(7, False, 0.5, 0.5), torch.hamming_window(7, False, 0.5, 0.5)),
             (ag.kaiser_window(9, True, 5.0), torch.kaiser_window(9, True, 5.0)),
             (ag.kaiser_window(9, beta=0.0), torch.kaiser_window(9, True, 0.0))]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-6)
        assert ours.dtype == ag.float32


def test_window_factory_keywords():
    w = ag.hann_window(4, requires_grad=True, device="cpu", layout=None, pin_memory=False)
    assert w.requires_grad and w.is_leaf
    with pytest.raises(RuntimeError, match="requires non-negative window_length"):
        ag.hann_window(-1)
    with pytest.raises(RuntimeError, match="expects floating point dtypes"):
        ag.blackman_window(4, dtype=ag.int64)
    with pytest.raises(TypeError, match="must be torch.layout"):  # PyTorch: TypeError too
        ag.hann_window(4, layout="torch.sparse_coo")
    with pytest.raises(NotImplementedError, match="dense"):  # the factories' layout check
        ag.hann_window(4, layout=ag.sparse_coo)


@needs_torch
@pytest.mark.parametrize("args", [(0, 2, 5), (0, 3, 4, 2), (-1.5, 2.3, 17), (2, 0, 3), (0, 2, 1),
                                  (0, 2, 0), (1, -1, 6, 0.5)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_logspace_matches_torch(args, dtype):
    ours = ag.logspace(*args, dtype=getattr(ag, dtype)).numpy()
    theirs = torch.logspace(*args, dtype=getattr(torch, dtype)).numpy()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if dtype == "int64":
        np.testing.assert_array_equal(ours, theirs)
    else:  # pow: within an ulp or two of PyTorch's vectorized one
        np.testing.assert_allclose(ours, theirs, rtol=4 * np.finfo(dtype).eps)


@needs_torch
@pytest.mark.parametrize("args", [(0, 1, 0.3), (1, 4), (0, -2, -0.5), (0.1, 1.0, 0.1), (3, 3)])
def test_range_matches_torch_and_warns(args):
    with pytest.warns(UserWarning, match="torch.range is deprecated"):
        ours = ag.range(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.range(*args)
    assert ours.dtype == ag.float32
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_range_dtype_and_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert ag.range(1, 4, dtype=ag.int64).tolist() == [1, 2, 3, 4]
        with pytest.raises(RuntimeError, match="step must be nonzero"):
            ag.range(0, 1, 0)
        with pytest.raises(RuntimeError, match="inconsistent with step sign"):
            ag.range(1, 0)
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        ag.logspace(0, 1, -1)


def test_logspace_out():
    out = ag.empty(3)
    assert ag.logspace(0, 2, 3, out=out) is out and out.tolist() == [1.0, 10.0, 100.0]
