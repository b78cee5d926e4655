"""``arraygrad.testing.make_tensor``: shapes, dtypes, PyTorch's default ranges and checks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.testing import make_tensor

DTYPES = [ag.float16, ag.float32, ag.float64, ag.int32, ag.int64, ag.bool]


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 4), max_size=3), dtype=st.sampled_from(DTYPES))
def test_shape_dtype_and_default_range(shape, dtype):
    t = make_tensor(*shape, dtype=dtype, device="cpu")
    assert tuple(t.shape) == tuple(shape) and t.dtype == dtype
    if t.numel():
        values = t.flatten().tolist()
        low, high = {ag.bool: (0, 1), ag.int32: (-9, 9), ag.int64: (-9, 9)}.get(dtype, (-9, 9))
        assert min(values) >= low and max(values) <= high


def test_one_sequence_as_shape_and_low_high():
    t = make_tensor((3, 4), dtype=ag.float64, device="cpu", low=2, high=3)
    assert tuple(t.shape) == (3, 4)
    assert 2 <= t.min().item() and t.max().item() < 3


def test_noncontiguous_and_exclude_zero():
    t = make_tensor(4, 5, dtype=ag.float32, device="cpu", noncontiguous=True)
    assert tuple(t.shape) == (4, 5) and not t.is_contiguous()
    z = make_tensor(50, dtype=ag.int32, device="cpu", low=0, high=2, exclude_zero=True)
    assert 0 not in z.tolist()


def test_requires_grad():
    t = make_tensor(3, dtype=ag.float64, device="cpu", requires_grad=True)
    assert t.requires_grad and t.is_leaf
    with pytest.raises(ValueError, match="requires_grad=True. is not supported"):
        make_tensor(3, dtype=ag.int64, device="cpu", requires_grad=True)


def test_checks():
    with pytest.raises(ValueError, match="`low` must be less than `high`"):
        make_tensor(3, dtype=ag.float32, device="cpu", low=3, high=1)
    with pytest.raises(ValueError, match="cannot be NaN"):
        make_tensor(3, dtype=ag.float32, device="cpu", low=float("nan"))
    with pytest.raises(ValueError, match="mutually exclusive"):
        make_tensor(3, dtype=ag.float32, device="cpu", noncontiguous=True, memory_format=object())
    with pytest.raises(ValueError, match="only supports"):
        make_tensor(3, dtype=ag.int32, device="cpu", low=2 ** 40, high=2 ** 41)
