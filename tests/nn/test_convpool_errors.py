"""Bad arguments to the convolution, pooling, fold and padding functions raise PyTorch's error
class (checked call by call against PyTorch where installed), and the Fold/Unfold layers
match PyTorch's."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn import functional as F

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# (function name, input shapes (float tensors), other arguments): each call is refused
BAD_CALLS = [
    ("conv3d", [(2, 4, 4, 4), (2, 3, 2, 2, 2)], {}),  # channels
    ("conv3d", [(1, 2, 4, 4, 4), (2, 2, 2, 2, 2)], dict(stride=0)),
    ("conv3d", [(1, 2, 4, 4, 4), (2, 2, 2, 2, 2)], dict(padding=-1)),
    ("conv3d", [(1, 2, 4, 4, 4), (2, 2, 2, 2, 2)], dict(padding="same", stride=2)),
    ("conv3d", [(1, 2, 4, 4, 4), (2, 2, 2, 2, 2)], dict(padding="full")),
    ("conv3d", [(1, 2, 4, 4, 4), (2, 2, 2, 2, 2)], dict(stride=(1, 1))),
    ("conv3d", [(1, 2, 4, 4, 4), (2, 2, 5, 2, 2)], {}),  # output too small
    ("conv3d", [(1, 2, 4, 4, 4), (2, 2, 2, 2, 2), (3,)], {}),  # bias size
    ("conv1d", [(2, 4, 4, 4), (2, 4, 2)], {}),  # 4-D input to conv1d
    ("conv_transpose1d", [(1, 3, 4), (2, 2, 2)], {}),
    ("conv_transpose3d", [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2)], dict(stride=2, output_padding=2)),
    ("conv_transpose3d", [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2)], dict(padding=-1)),
    ("conv_transpose3d", [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2)], dict(stride=0)),
    ("conv_transpose1d", [(1, 2, 3), (2, 2, 2), (3,)], {}),
    ("max_pool1d", [(2, 3, 7)], dict(kernel_size=3, padding=2)),
    ("max_pool1d", [(2, 3, 7)], dict(kernel_size=3, stride=0)),
    ("max_pool1d", [(2, 3, 7)], dict(kernel_size=9)),
    ("max_pool2d", [(1, 1, 4, 4)], dict(kernel_size=2, stride=-1)),
    ("avg_pool1d", [(1, 1, 4)], dict(kernel_size=-2)),
    ("max_pool3d", [(1, 1, 4, 4, 4)], dict(kernel_size=2, padding=-1)),
    ("max_pool1d", [(2, 3, 7, 6)], dict(kernel_size=2)),
    ("max_pool3d", [(2, 3, 7, 6, 5)], dict(kernel_size=(3, 3))),
    ("max_pool3d", [(2, 3, 7, 6, 5)], dict(kernel_size=3, dilation=0)),
    ("max_pool3d", [(2, 3, 7, 6, 5)], dict(kernel_size=6)),
    ("max_pool2d", [(2, 3, 0, 3)], dict(kernel_size=2)),
    ("avg_pool1d", [(2, 3, 7)], dict(kernel_size=3, padding=2)),
    ("avg_pool1d", [(2, 3, 7, 1)], dict(kernel_size=3)),
    ("avg_pool3d", [(2, 3, 7, 6, 5)], dict(kernel_size=3, stride=0)),
    ("avg_pool3d", [(2, 3, 7, 6, 5)], dict(kernel_size=3, divisor_override=0)),
    ("avg_pool3d", [(2, 3, 7)], dict(kernel_size=2)),
    ("adaptive_avg_pool1d", [(2, 3, 7, 6)], dict(output_size=3)),
    ("adaptive_avg_pool3d", [(7, 6)], dict(output_size=3)),
    ("adaptive_avg_pool2d", [(2, 3, 0, 3)], dict(output_size=2)),
    ("adaptive_avg_pool2d", [(2, 3, 4, 3)], dict(output_size=-1)),
    ("adaptive_max_pool1d", [(2, 3, 7, 6)], dict(output_size=3)),
    ("adaptive_max_pool2d", [(7, 6)], dict(output_size=3)),
    ("adaptive_max_pool2d", [(2, 0, 3, 3)], dict(output_size=2)),
    ("adaptive_max_pool2d", [(2, 3, 4, 3)], dict(output_size=(3, 2, 1))),
    ("unfold", [(2, 3, 4, 5, 6)], dict(kernel_size=2)),
    ("unfold", [(2, 3, 5, 6)], dict(kernel_size=(2, 2, 2))),
    ("unfold", [(2, 3, 5, 6)], dict(kernel_size=7)),
    ("unfold", [(2, 3, 5, 6)], dict(kernel_size=0)),
    ("unfold", [(2, 3, 5, 6)], dict(kernel_size=2, padding=-1)),
    ("fold", [(2, 12, 20)], dict(output_size=(5, 7), kernel_size=2)),
    ("fold", [(2, 12, 20)], dict(output_size=(5, 6), kernel_size=3)),
    ("fold", [(2, 12, 20)], dict(output_size=(5, 6, 1), kernel_size=2)),
    ("fold", [(1, 2, 12, 20)], dict(output_size=(5, 6), kernel_size=2)),
    ("fold", [(2, 12, 20)], dict(output_size=(5, 6), kernel_size=2, stride=0)),
    ("pad", [(2, 3, 4)], dict(pad=(1,) * 6, mode="reflect")),
    ("pad", [(4,)], dict(pad=(1, 1), mode="replicate")),
    ("pad", [(2, 3, 4)], dict(pad=(4, 1), mode="reflect")),
    ("pad", [(2, 3, 4)], dict(pad=(5, 1), mode="circular")),
    ("pad", [(2, 3, 4)], dict(pad=(-2, -3), mode="circular")),
    ("pad", [(2, 3, 4)], dict(pad=(-2, -2), mode="replicate")),
    ("pad", [(2, 0, 4)], dict(pad=(1, 1), mode="reflect")),
    ("pad", [(2, 3, 4)], dict(pad=(1, 1), mode="reflect", value=2.0)),
    ("pad", [(2, 3, 4)], dict(pad=(1, 1), mode="foo")),
    ("pad", [(2, 3, 4)], dict(pad=(1, 1, 1))),
    ("pad", [(2, 3, 4)], dict(pad=(1,) * 8)),
    ("pad", [(2, 3, 4)], dict(pad=(1.5, 1))),
    ("pad", [(2, 3, 4)], dict(pad=(-5, 1))),
]


def _error_class(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as exc:  # the class is what is compared
        return type(exc)
    return None


@needs_torch
@pytest.mark.parametrize("name,shapes,kwargs", BAD_CALLS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD_CALLS)])
def test_bad_calls_raise_torchs_error_class(name, shapes, kwargs):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    theirs = _error_class(getattr(torch.nn.functional, name),
                          *(torch.tensor(a) for a in arrays), **kwargs)
    ours = _error_class(getattr(F, name), *(ag.tensor(a) for a in arrays), **kwargs)
    assert theirs is not None
    assert ours is theirs


def test_bad_calls_are_refused_without_torch():
    """The same calls, checked without PyTorch: every one is refused (never a crash deep in
    array code: the error classes are PyTorch's, listed here)."""
    allowed = (RuntimeError, ValueError, TypeError, NotImplementedError, IndexError)
    rng = np.random.default_rng(0)
    for name, shapes, kwargs in BAD_CALLS:
        cls = _error_class(getattr(F, name), *(ag.tensor(rng.standard_normal(s))
                                               for s in shapes), **kwargs)
        assert cls is not None and issubclass(cls, allowed), (name, shapes, kwargs, cls)


@needs_torch
def test_fold_unfold_layers_match_torch():
    args = dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    ours_u, theirs_u = nn.Unfold(**args), torch.nn.Unfold(**args)
    ours_f, theirs_f = nn.Fold((6, 7), **args), torch.nn.Fold((6, 7), **args)
    assert repr(ours_u) == repr(theirs_u) and repr(ours_f) == repr(theirs_f)
    x = np.random.default_rng(1).standard_normal((2, 3, 6, 7))
    cols = theirs_u(torch.tensor(x))
    np.testing.assert_allclose(ours_u(ag.tensor(x)).numpy(), cols.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours_f(ag.tensor(cols.numpy())).numpy(),
                               theirs_f(cols).numpy(), rtol=1e-12)
