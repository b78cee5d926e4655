"""PyTorch's ``out=`` on the namespace's functions, ``Tensor.resize_`` and the dtype queries
(``finfo``, ``iinfo``, ``result_type``, ``can_cast``, ``is_*``) and ``arraygrad.erf``."""

import math
import warnings

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def test_out_receives_the_result_and_is_returned():
    a = ag.arange(6.0).reshape(2, 3)
    out = ag.empty(2, 2)
    assert ag.matmul(a, a.T, out=out) is out
    assert out.tolist() == (a @ a.T).tolist()
    before = out._version
    ag.mul(a[:, :2], 2, out=out)
    assert out.tolist() == [[0.0, 2.0], [6.0, 8.0]] and out._version > before


def test_out_of_a_wider_dtype_casts_and_narrower_category_is_refused():
    out = ag.zeros(3, dtype=ag.float64)
    ag.add(ag.tensor([1, 2, 3]), 1, out=out)
    assert out.dtype == ag.float64 and out.tolist() == [2.0, 3.0, 4.0]
    target = ag.tensor([7, 7])
    with pytest.raises(RuntimeError, match="Float can't be cast to the desired output type Long"):
        ag.add(ag.ones(2), 0.5, out=target)
    assert target.tolist() == [7, 7]  # untouched


def test_out_with_autograd_is_refused_and_allowed_under_no_grad():
    w = ag.ones(2, requires_grad=True)
    out = ag.full((2,), 5.0)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        ag.mul(w, 3, out=out)
    assert out.tolist() == [5.0, 5.0]
    with ag.no_grad():
        ag.mul(w, 3, out=out)
    assert out.tolist() == [3.0, 3.0] and not out.requires_grad


def test_out_of_another_shape_is_resized_with_a_warning_unless_empty():
    empty = ag.empty(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.sub(ag.ones(2, 2), 1, out=empty)
    assert empty.shape == (2, 2) and empty.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    out = ag.ones(5)
    with pytest.warns(UserWarning, match="was resized"):
        ag.add(ag.ones(2, 3), 1, out=out)
    assert out.shape == (2, 3)
    view = ag.ones(4, 4)[0]
    with pytest.raises(RuntimeError, match="view"):
        ag.add(ag.ones(2), 1, out=view)


def test_out_for_tuple_results_and_factories():
    values, indices = ag.empty(3), ag.empty(3, dtype=ag.int64)
    got = ag.sort(ag.tensor([3.0, 1.0, 2.0]), out=(values, indices))
    assert got.values is values and got.indices is indices
    assert values.tolist() == [1.0, 2.0, 3.0] and indices.tolist() == [1, 2, 0]
    with pytest.raises(TypeError, match="tuple of 2"):
        ag.sort(ag.tensor([1.0]), out=values)
    assert ag.arange(4, out=ag.empty(4)).tolist() == [0.0, 1.0, 2.0, 3.0]
    assert ag.zeros(2, 3, out=ag.empty(6)).shape == (2, 3)
    with pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        ag.neg(ag.ones(1), out=[1.0])


def test_functions_without_tensor_results_take_no_out():
    with pytest.raises(TypeError):
        ag.is_nonzero(ag.ones(1), out=ag.empty(1))


def test_resize_keeps_leading_elements_and_refuses_grad():
    t = ag.arange(6.0)
    assert t.resize_(2, 2) is t and t.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    t.resize_((3, 3))
    assert t.shape == (3, 3) and t.flatten()[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert ag.empty(0).resize_as_(t).shape == (3, 3)
    with pytest.raises(RuntimeError, match="require grad"):
        ag.ones(2, requires_grad=True).resize_(4)


def test_finfo_and_iinfo_values():
    f32 = ag.finfo(ag.float32)
    assert f32.bits == 32 and f32.eps == 2.0 ** -23 and f32.tiny == 2.0 ** -126
    assert f32.max == (2 - 2.0 ** -23) * 2.0 ** 127 and f32.min == -f32.max
    assert f32.resolution == 1e-6 and f32.dtype == "float32"
    assert ag.finfo() == ag.finfo(ag.get_default_dtype())
    f16 = ag.finfo(ag.float16)
    assert f16.max == 65504.0 and f16.eps == 2.0 ** -10 and f16.smallest_normal == 2.0 ** -14
    assert ag.finfo(ag.float64).max == 1.7976931348623157e308
    i32 = ag.iinfo(ag.int32)
    assert (i32.bits, i32.min, i32.max) == (32, -2 ** 31, 2 ** 31 - 1)
    assert ag.iinfo(ag.int64).max == 2 ** 63 - 1
    with pytest.raises(TypeError, match="floating point"):
        ag.finfo(ag.int64)
    with pytest.raises(TypeError, match="integer"):
        ag.iinfo(ag.float32)
    with pytest.raises(TypeError):
        ag.iinfo(ag.bool)


def test_type_queries():
    assert ag.result_type(ag.tensor([1, 2]), 1.0) == ag.float32
    assert ag.result_type(ag.tensor([1.0], dtype=ag.float64), ag.tensor(1.0)) == ag.float64
    assert ag.can_cast(ag.int32, ag.float32) and not ag.can_cast(ag.float32, ag.int64)
    assert ag.can_cast(ag.float64, ag.float16) and not ag.can_cast(ag.int64, ag.bool)
    assert ag.is_floating_point(ag.ones(1)) and not ag.is_floating_point(ag.tensor([1]))
    assert not ag.is_complex(ag.ones(1)) and not ag.ones(1).is_complex()
    assert ag.is_nonzero(ag.tensor([0.5])) and not ag.tensor(0).is_nonzero()
    for bad in (ag.tensor([]), ag.tensor([1, 2])):
        with pytest.raises(RuntimeError, match="ambiguous"):
            ag.is_nonzero(bad)


def test_erf_is_in_the_namespace():
    assert ag.erf(ag.tensor([0.5], dtype=ag.float64)).item() == pytest.approx(math.erf(0.5), abs=1e-15)


@needs_torch
def test_finfo_iinfo_match_torch():
    for ours, theirs in ((ag.float16, torch.float16), (ag.float32, torch.float32),
                         (ag.float64, torch.float64)):
        a, b = ag.finfo(ours), torch.finfo(theirs)
        for field in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
            assert getattr(a, field) == getattr(b, field), field
        assert repr(a) == repr(b)
    for ours, theirs in ((ag.int32, torch.int32), (ag.int64, torch.int64)):
        a, b = ag.iinfo(ours), torch.iinfo(theirs)
        assert (a.bits, a.min, a.max, a.dtype) == (b.bits, b.min, b.max, b.dtype)
        assert repr(a) == repr(b)
    names = ("float16", "float32", "float64", "int32", "int64", "bool")
    for x in names:
        for y in names:
            assert ag.can_cast(getattr(ag, x), getattr(ag, y)) == torch.can_cast(
                getattr(torch, x), getattr(torch, y)), (x, y)
