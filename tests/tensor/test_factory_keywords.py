"""The factories' keywords (``size=``, ``pin_memory=``, ``generator=``, ``requires_grad=``,
``from_dlpack(device=, copy=)``), the strided factories and ``logspace``/``range``."""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import arraygrad as ag
from torch_errors import needs_torch, same_error_as_torch, torch


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_size_keyword(name):
    fn = getattr(ag, name)
    assert fn(size=(2, 3)).shape == ag.Size([2, 3])
    assert fn(size=[4]).shape == ag.Size([4])
    with pytest.raises(TypeError, match="multiple values for argument 'size'"):
        fn(2, size=(2, 3))


def test_new_factories_take_size_layout_and_pin_memory():
    x = ag.ones(2, dtype=ag.float64)
    for name in ("new_zeros", "new_ones", "new_empty"):
        out = getattr(x, name)(size=(3,), layout=ag.strided, pin_memory=False)
        assert out.shape == ag.Size([3]) and out.dtype is ag.float64


def test_zeros_writes_into_out():  # it used to ignore out=
    out = ag.ones(3)
    assert ag.zeros(3, out=out) is out and out.tolist() == [0.0, 0.0, 0.0]


@needs_torch
@pytest.mark.skipif(ag.accelerator.is_available(), reason="with an accelerator pinning is allowed")
@pytest.mark.parametrize("call", [
    lambda lib: lib.empty(2, pin_memory=True), lambda lib: lib.zeros(2, pin_memory=True),
    lambda lib: lib.tensor([1.0], pin_memory=True), lambda lib: lib.rand(2, pin_memory=True),
    lambda lib: lib.ones(2).new_empty(2, pin_memory=True),
    lambda lib: lib.empty_like(lib.ones(2), pin_memory=True),
])
def test_pin_memory_without_an_accelerator_raises_as_a_cpu_pytorch(call):
    same_error_as_torch(call)
    assert call.__code__  # pin_memory=False is always fine:
    assert ag.empty(2, pin_memory=False).shape == ag.Size([2])


@needs_torch
@pytest.mark.skipif(ag.accelerator.is_available(), reason="with an accelerator pinning is allowed")
def test_pin_memory_method_without_an_accelerator():
    same_error_as_torch(lambda lib: lib.ones(2).pin_memory())
    assert ag.ones(2).is_pinned() is torch.ones(2).is_pinned() is False


@pytest.mark.parametrize("name", ["rand_like", "randn_like", "randint_like"])
def test_like_factories_take_a_generator(name):
    x = ag.ones(3, 4)
    args = (5,) if name == "randint_like" else ()
    a = getattr(ag, name)(x, *args, generator=ag.Generator().manual_seed(7))
    b = getattr(ag, name)(x, *args, generator=ag.Generator().manual_seed(7))
    assert a.tolist() == b.tolist() and a.shape == x.shape and a.dtype is x.dtype


def test_randint_like_bounds():
    out = ag.randint_like(ag.zeros(500, dtype=ag.int64), 3, 6)
    assert out.dtype is ag.int64 and set(out.tolist()) == {3, 4, 5}
    assert set(ag.randint_like(ag.zeros(500), ag.tensor(2)).tolist()) == {0.0, 1.0}


@needs_torch
def test_randperm_requires_grad():
    out = ag.randperm(4, dtype=ag.float32, requires_grad=True)
    assert out.requires_grad and sorted(out.tolist()) == [0.0, 1.0, 2.0, 3.0]
    same_error_as_torch(lambda lib: lib.randperm(3, requires_grad=True))


def test_from_dlpack_device_and_copy():
    x = ag.arange(4.0)
    shared = ag.from_dlpack(x, copy=False)
    assert shared.data_ptr() == x.data_ptr()
    assert ag.from_dlpack(x).data_ptr() == x.data_ptr()
    copied = ag.from_dlpack(x, copy=True)
    assert copied.data_ptr() != x.data_ptr() and copied.tolist() == x.tolist()
    assert ag.from_dlpack(x, device="cpu").data_ptr() == x.data_ptr()
    moved = ag.from_dlpack(x, device="strict")
    assert moved.device.type == "strict" and moved.tolist() == x.tolist()
    with pytest.raises(BufferError, match="without a copy"):
        ag.from_dlpack(x, device="strict", copy=False)
    back = ag.from_dlpack(ag.to_dlpack(x))
    assert back.data_ptr() == x.data_ptr()


@needs_torch
def test_to_dlpack_reaches_pytorch():
    x = ag.arange(4.0)
    t = torch.from_dlpack(ag.to_dlpack(x))
    assert t.tolist() == x.tolist() and t.data_ptr() == x.data_ptr()


# -- strided factories ----------------------------------------------------------------------
@needs_torch
@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=0, max_size=4).flatmap(
    lambda shape: st.tuples(st.just(shape), st.permutations(range(len(shape))))))
def test_empty_permuted_strides_match_pytorch(case):
    shape, order = case
    mine = ag.empty_permuted(shape, order)
    theirs = torch.empty_permuted(shape, order)
    assert mine.shape == tuple(theirs.shape)
    assert mine.is_contiguous() == theirs.is_contiguous()
    # an empty tensor's strides are PyTorch's bookkeeping only, and arraygrad reports
    # row-major strides for every contiguous tensor (PyTorch keeps size-1 dimensions' own)
    assume(theirs.numel() and not (1 in shape and theirs.is_contiguous()))
    assert mine.stride() == theirs.stride()


@needs_torch
@pytest.mark.parametrize("size, stride", [((2, 3), (1, 2)), ((2, 3), (3, 1)), ((2, 3), (0, 1)),
                                          ((2, 3, 4), (12, 1, 3)), ((), ()), ((4,), (2,))])
def test_empty_strided_reports_the_strides(size, stride):
    mine = ag.empty_strided(size, stride, dtype=ag.float64)
    theirs = torch.empty_strided(size, stride, dtype=torch.float64)
    assert mine.stride() == theirs.stride() and mine.shape == tuple(theirs.shape)
    assert mine.is_contiguous() == theirs.is_contiguous() and mine.dtype is ag.float64
    out = ag.ones(2, dtype=ag.float64).new_empty_strided(size, stride)
    assert out.stride() == theirs.stride() and out.dtype is ag.float64
    assert ag.empty_strided(size, stride, requires_grad=True).requires_grad


@needs_torch
@pytest.mark.parametrize("call", [
    lambda lib: lib.empty_strided((2, 3), (1,)),
    lambda lib: lib.empty_strided((2, 3), (-1, 1)),
    lambda lib: lib.empty_permuted((2, 3), (0, 0)),
    lambda lib: lib.empty_permuted((2, 3), (0,)),
])
def test_strided_factory_refusals_match_pytorch(call):
    same_error_as_torch(call)


def test_view_of_a_strided_tensor_raises_where_pytorch_would():
    x = ag.empty_strided((2, 3), (1, 2))
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        x.view(6)
    assert x.reshape(6).shape == ag.Size([6])


# -- logspace and range ----------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("args, kw", [
    ((0, 2, 3), {}), ((0, 2, 3), {"base": 2}), ((0.0, 1.0, 5), {}),
    ((0, 2, 3), {"dtype": "int64"}), ((0, 1, 1), {}), ((0, 1, 0), {}),
    ((-1.0, 1.0, 4), {"base": 3.0, "dtype": "float64"}),
])
def test_logspace_matches_pytorch(args, kw):
    mine = ag.logspace(*args, **{k: getattr(ag, v) if k == "dtype" else v for k, v in kw.items()})
    theirs = torch.logspace(*args, **{k: getattr(torch, v) if k == "dtype" else v
                                      for k, v in kw.items()})
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(np.array(mine.tolist()), theirs.numpy(), rtol=1e-6)


def test_logspace_refusal_and_out():
    with pytest.raises(RuntimeError, match="number of steps must be non-negative"):
        ag.logspace(0, 1, -1)
    out = ag.empty(3)
    assert ag.logspace(0, 2, 3, out=out) is out and out.tolist() == [1.0, 10.0, 100.0]
    assert ag.logspace(ag.tensor(0.0), 1, 3).tolist() == pytest.approx([1.0, 10 ** 0.5, 10.0])


@needs_torch
@pytest.mark.parametrize("args, kw", [
    ((1, 4), {}), ((0, 1, 0.3), {}), ((0, 10, 3), {}), ((3, 1, -1), {}),
    ((1, 4), {"dtype": "int64"}), ((1, 4, 0.5), {}), ((0, 1, 0.1), {}), ((0, 0.9, 0.3), {}),
])
def test_range_is_pytorchs_inclusive_range(args, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.range(*args, **{k: getattr(torch, v) for k, v in kw.items()})
    with pytest.warns(UserWarning, match="torch.range is deprecated") as record:
        mine = ag.range(*args, **{k: getattr(ag, v) for k, v in kw.items()})
    assert record[0].filename == __file__  # the warning points at the caller
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(np.array(mine.tolist()), theirs.numpy(), rtol=1e-6)


@needs_torch
@pytest.mark.parametrize("args", [(0, 1, 0), (0, 1, -1)])
def test_range_refusals_match_pytorch(args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error_as_torch(lambda lib: lib.range(*args))


def test_randint_takes_high_and_size_as_keywords():
    # PyTorch's RandomSampler(replacement=True) calls randint(high=n, size=(32,), ...)
    g1, g2 = ag.Generator().manual_seed(4), ag.Generator().manual_seed(4)
    got = ag.randint(high=7, size=(32,), dtype=ag.int64, generator=g1)
    assert got.shape == ag.Size([32]) and got.dtype is ag.int64
    assert ag.equal(got, ag.randint(0, 7, (32,), generator=g2))
    assert int(got.min()) >= 0 and int(got.max()) < 7
    with pytest.raises(TypeError):
        ag.randint(size=(3,))
