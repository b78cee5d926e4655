"""The NumPy backend's shortcuts agree with what they replace: its namespace's reductions
(ufunc ``reduce`` instead of ``np.sum``/``np.max``/``np.min``) and its cached scalar
operands."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.backends import ScalarOperands, get_backend
from arraygrad.backends.scalar_operands import scalar_operand

DTYPES = [np.float16, np.float32, np.float64, np.int32, np.int64, np.bool_]


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=3),
       dtype=st.sampled_from(DTYPES), keepdims=st.booleans(), data=st.data())
def test_reductions_match_numpy_functions(shape, dtype, keepdims, data):
    xp = get_backend("numpy").xp
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 10).astype(dtype)
    ndim = len(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1) if ndim else st.none(),
                               st.lists(st.integers(0, max(ndim - 1, 0)), unique=True,
                                        max_size=ndim).map(tuple)))
    # float16 sums accumulate in float32 and round once, as PyTorch's (NumPy's in float16)
    low_sum = (lambda a, **k: np.sum(a.astype(np.float32), **k).astype(np.float16)) \
        if dtype is np.float16 else np.sum
    for fast, reference in ((xp.sum, low_sum), (xp.max, np.max), (xp.min, np.min)):
        got = fast(x, axis=axis, keepdims=keepdims)
        want = reference(x, axis=axis, keepdims=keepdims)
        assert np.asarray(got).dtype == np.asarray(want).dtype
        assert np.shape(got) == np.shape(want)
        if fast is xp.sum and dtype in (np.float32, np.float64) and _rows(ndim, axis):
            # rows or columns: one BLAS product (tests/ops/test_numpy_row_sums.py),
            # NumPy's pairwise sum to a few roundings
            bound = 8 * np.finfo(dtype).eps * np.sum(np.abs(x), axis=axis, keepdims=keepdims)
            assert np.all(np.abs(got - want) <= bound)
        else:
            np.testing.assert_array_equal(got, want)


def _rows(ndim, axis):
    """Whether ``axis`` names trailing or leading axes, leaving at least one."""
    if axis is None or axis == () or ndim < 2:
        return False
    axes = sorted(a % ndim for a in ((axis,) if isinstance(axis, int) else axis))
    return len(axes) < ndim and axes in (list(range(ndim - len(axes), ndim)),
                                         list(range(len(axes))))


def test_reductions_keep_numpy_errors_and_dtype_argument():
    xp = get_backend("numpy").xp
    with pytest.raises(ValueError):
        xp.max(np.zeros((0,), np.float32))
    assert xp.sum(np.ones(3, np.int8)).dtype == np.sum(np.ones(3, np.int8)).dtype
    assert xp.sum(np.ones(3, np.float32), dtype=np.float64).dtype == np.float64


def test_scalar_operands_are_typed_cached_and_bounded():
    cache = ScalarOperands(np, limit=4)
    one = cache[1.0, np.dtype(np.float32)]
    assert one.dtype == np.float32 and one.shape == () and float(one) == 1.0
    assert cache[1, np.dtype(np.float32)] is one  # 1 == 1.0: the same operand
    assert cache[1.0, np.dtype(np.float64)].dtype == np.float64
    for v in range(10):
        cache[float(v + 2), np.dtype(np.float32)]
    assert len(cache) <= 4
    assert cache.zero(np.dtype(np.float32)).dtype == np.float32
    assert not np.signbit(cache.zero(np.dtype(np.float32)))


def test_scalar_operand_passes_zeros_and_uncached_backends_through():
    numpy_backend = get_backend("numpy")
    assert scalar_operand(numpy_backend, -0.0, np.dtype(np.float32)) == 0.0
    assert type(scalar_operand(numpy_backend, -0.0, np.dtype(np.float32))) is float
    assert scalar_operand(numpy_backend, 2.5, np.dtype(np.float32)).dtype == np.float32
    strict = ag.tensor([1.0], device="strict")._backend
    assert strict.scalar_operands is None
    assert scalar_operand(strict, 2.5, None) == 2.5


def test_cpu_returns_self_on_the_cpu_and_moves_other_backends():
    t = ag.tensor([1.0, 2.0])
    assert t.cpu() is t
    s = ag.tensor([1.0, 2.0], device="strict", requires_grad=True)
    c = s.cpu()
    assert c is not s and c.device == ag.device("cpu") and c.tolist() == [1.0, 2.0]
    c.sum().backward()  # the move is differentiable
    assert s.grad.tolist() == [1.0, 1.0]
