"""PyTorch names that programs use in their first lines (issue #12): accelerator, default
device/dtype, CUDA seeding, backend flags, legacy typed constructors, ``__format__``,
NumPy-style reduction aliases and ``range`` keys — each against PyTorch's behaviour."""

from __future__ import annotations

import math

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


# -- accelerator, cuda, backends flags ------------------------------------------------------------

def test_accelerator_matches_cuda_availability():
    has_cuda = ag.cuda.is_available()
    assert ag.accelerator.is_available() is has_cuda
    if has_cuda:
        assert ag.accelerator.current_accelerator() == ag.device("cuda")
        assert ag.accelerator.device_count() == ag.cuda.device_count() >= 1
        assert ag.accelerator.current_device_index() == 0
    else:
        # PyTorch without an accelerator: None, 0 devices, RuntimeError on device access
        assert ag.accelerator.current_accelerator() is None
        assert ag.accelerator.current_accelerator(check_available=True) is None
        assert ag.accelerator.device_count() == 0
        with pytest.raises(RuntimeError, match="none is available"):
            ag.accelerator.current_device_index()
        with pytest.raises(RuntimeError, match="none is available"):
            ag.accelerator.synchronize()


def test_accelerator_device_pattern_runs_on_cpu():
    # the common opening line of device-agnostic programs
    acc = ag.accelerator.current_accelerator()
    dev = acc if ag.accelerator.is_available() else ag.device("cpu")
    assert ag.ones(2, device=dev).device.type == dev.type


def test_cuda_seeding_never_fails_and_synchronize_is_pytorchs():
    ag.cuda.manual_seed(3)
    ag.cuda.manual_seed_all(3)
    if not ag.cuda.is_available():
        # PyTorch's CPU build: "Torch not compiled with CUDA enabled"
        with pytest.raises(AssertionError, match="not compiled with CUDA"):
            ag.cuda.synchronize()
    else:
        ag.cuda.synchronize()
        a = ag.rand(4, device="cuda")
        ag.cuda.manual_seed(3)
        b = ag.rand(4, device="cuda")
        ag.cuda.manual_seed(3)
        assert ag.equal(a, b) if hasattr(ag, "equal") else bool((a == b).all())


def test_backend_flags_are_settable_no_ops():
    b = ag.backends
    assert b.cuda.matmul.allow_tf32 is False
    assert (b.cudnn.enabled, b.cudnn.benchmark, b.cudnn.deterministic, b.cudnn.allow_tf32) == (
        True, False, False, True)
    assert b.cudnn.is_available() is False and b.cudnn.version() is None
    assert b.mps.is_available() is False and b.mps.is_built() is False
    saved = (b.cudnn.benchmark, b.cudnn.deterministic, b.cuda.matmul.allow_tf32)
    try:
        b.cudnn.benchmark = True
        b.cudnn.deterministic = True
        b.cuda.matmul.allow_tf32 = True
        assert ag.backends.cudnn.benchmark is True and ag.backends.cuda.matmul.allow_tf32
        x = ag.tensor([[1.0, 2.0]])
        assert (x @ x.T).item() == 5.0  # computation unchanged
    finally:
        b.cudnn.benchmark, b.cudnn.deterministic, b.cuda.matmul.allow_tf32 = saved
    # the array-backend registry is intact beside the flag modules
    assert any(info.name == "numpy" for info in ag.backends.available())


def test_is_xpu_is_mps():
    t = ag.zeros(2)
    assert t.is_xpu is False and t.is_mps is False


# -- default device and dtype ---------------------------------------------------------------------

def test_set_default_device_factories_honour_it():
    assert ag.get_default_device() == ag.device("cpu")
    try:
        ag.set_default_device("strict")
        assert ag.get_default_device() == ag.device("strict")
        for t in (ag.zeros(2), ag.ones(2), ag.tensor([1.0]), ag.arange(3), ag.rand(2),
                  ag.randn(2), ag.full((2,), 1.0), ag.empty(1), ag.eye(2), ag.linspace(0, 1, 3),
                  ag.randint(0, 3, (2,)), ag.Tensor([1.0, 2.0])):
            assert t.device == ag.device("strict"), t
        assert ag.zeros(1, device="cpu").device == ag.device("cpu")  # explicit device wins
    finally:
        ag.set_default_device(None)
    assert ag.zeros(1).device == ag.device("cpu")


@pytest.mark.cuda
@needs_torch
def test_default_device_cuda_gets_index_as_pytorch():
    if not ag.cuda.is_available():
        pytest.skip("needs a CUDA backend")
    try:
        ag.set_default_device("cuda")
        assert ag.get_default_device() == ag.device("cuda", 0)
    finally:
        ag.set_default_device(None)


@needs_torch
@pytest.mark.parametrize("bad", ["int64", "int32", "bool"])
def test_set_default_dtype_refuses_non_floating_as_pytorch(bad):
    with pytest.raises(TypeError):
        torch.set_default_dtype(getattr(torch, bad))
    before = ag.get_default_dtype()
    with pytest.raises(TypeError, match="only floating-point types"):
        ag.set_default_dtype(getattr(ag, bad))
    assert ag.get_default_dtype() is before


def test_set_default_dtype_refuses_non_dtype_and_accepts_floats():
    with pytest.raises(TypeError, match="invalid dtype object"):
        ag.set_default_dtype(float)
    for d in (ag.float16, ag.float64, ag.float32):
        try:
            ag.set_default_dtype(d)
            assert ag.get_default_dtype() is d and ag.tensor([1.5]).dtype is d
        finally:
            ag.set_default_dtype(ag.float32)


def test_missing_dtypes_say_so():
    assert ag.float16 is ag.half and ag.int16 is ag.short
    assert (ag.cfloat, ag.cdouble) == (ag.complex64, ag.complex128)
    with pytest.raises(AttributeError, match="no complex32 dtype.*use complex64 instead"):
        ag.complex32
    assert not hasattr(ag, "chalf")


# -- legacy typed constructors --------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("name", ["FloatTensor", "DoubleTensor", "LongTensor", "IntTensor",
                                  "BoolTensor", "HalfTensor", "ByteTensor", "CharTensor",
                                  "ShortTensor", "BFloat16Tensor"])
def test_typed_constructors_match_pytorch(name):
    ours, theirs = getattr(ag, name), getattr(torch, name)
    a, b = ours([1, 0, 2]), theirs([1, 0, 2])
    assert a.dtype.name == str(b.dtype).split(".")[-1]
    assert a.tolist() == b.tolist() and a.device == ag.device("cpu")
    assert tuple(ours(2, 3).shape) == tuple(theirs(2, 3).shape)
    assert tuple(ours().shape) == tuple(theirs().shape) == (0,)
    assert isinstance(a, ours)
    assert ours(a) is a  # the same tensor, as PyTorch
    for other in ("FloatTensor", "LongTensor", "BoolTensor"):
        assert isinstance(a, getattr(ag, other)) == isinstance(b, getattr(torch, other))


def test_typed_isinstance_semantics():
    assert isinstance(ag.zeros(2), ag.FloatTensor)
    assert not isinstance(ag.zeros(2, dtype=ag.float64), ag.FloatTensor)
    assert not isinstance(ag.zeros(2, device="strict"), ag.FloatTensor)  # CPU only
    assert not isinstance([1.0], ag.FloatTensor)
    assert isinstance(ag.tensor([1, 2]), ag.LongTensor)


def test_typed_constructor_errors():
    with pytest.raises(TypeError, match="FloatTensor"):
        ag.FloatTensor(ag.tensor([1, 2]))  # wrong dtype
    with pytest.raises(RuntimeError, match="device type: cpu"):
        ag.FloatTensor([1.0], device="strict")
    assert not isinstance(ag.zeros(2, dtype=ag.int32), ag.ByteTensor)
    assert isinstance(ag.zeros(2, dtype=ag.uint8), ag.ByteTensor)


# -- __format__ -----------------------------------------------------------------------------------

@needs_torch
@pytest.mark.parametrize("spec", ["", "+.2f", ".3e", ">10", "g"])
def test_format_zero_dim_as_pytorch(spec):
    for value in (1.5, -2.25):
        assert format(ag.tensor(value), spec) == format(torch.tensor(value), spec)
    assert format(ag.tensor(3), "d") == format(torch.tensor(3), "d")
    assert "{:+.2f}".format(ag.tensor(0.125)) == "+0.12" == "{:+.2f}".format(torch.tensor(0.125))


@needs_torch
def test_format_of_dimensioned_tensors_as_pytorch():
    t = ag.tensor([1.5, 2.0])
    assert "{}".format(t) == str(t) == "tensor([1.5000, 2.0000])"
    with pytest.raises(TypeError):
        "{:+.2f}".format(torch.tensor([1.5]))
    with pytest.raises(TypeError, match="unsupported format string"):
        "{:+.2f}".format(ag.tensor([1.5]))  # one element but 1-d: PyTorch refuses too


# -- NumPy-style reduction aliases ----------------------------------------------------------------

_REDUCTIONS = ["sum", "mean", "std", "var", "prod", "amax", "amin", "argmax", "argmin",
               "logsumexp", "all", "any"]


@needs_torch
@pytest.mark.parametrize("name", _REDUCTIONS)
@pytest.mark.parametrize("kwargs", [{"keepdims": True}, {"axis": 1}, {"axis": 1, "keepdims": True}])
def test_keepdims_axis_aliases_match_pytorch(name, kwargs):
    data = [[0.5, 2.0, -1.0], [3.0, 0.25, 1.5]]
    x, tx = ag.tensor(data), torch.tensor(data)
    if name in ("all", "any"):
        x, tx = x > 0.4, tx > 0.4
    args = () if "axis" in kwargs else (1,)
    for ours, theirs in ((getattr(x, name)(*args, **kwargs), getattr(tx, name)(*args, **kwargs)),
                         (getattr(ag, name)(x, *args, **kwargs),
                          getattr(torch, name)(tx, *args, **kwargs))):
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert torch.allclose(torch.tensor(ours.tolist(), dtype=theirs.dtype), theirs)


@needs_torch
@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_keepdims(name):
    data = [[0.5, 2.0, -1.0], [3.0, 0.25, 1.5]]
    ours = getattr(ag.tensor(data), name)(1, keepdims=True)
    theirs = getattr(torch.tensor(data), name)(1, keepdims=True)
    assert ours.values.tolist() == theirs.values.tolist()
    assert ours.indices.tolist() == theirs.indices.tolist()


def test_keepdims_gradient_and_double_spelling():
    x = ag.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.sum(0, keepdims=True)
    assert tuple(y.shape) == (1, 2)
    (y * ag.tensor([[1.0, 2.0]])).sum().backward()
    assert x.grad.tolist() == [[1.0, 2.0], [1.0, 2.0]]
    with pytest.raises(TypeError, match="both 'keepdim' and 'keepdims'"):
        x.sum(0, keepdim=True, keepdims=True)
    with pytest.raises(TypeError, match="both 'dim' and 'axis'"):
        ag.mean(x, dim=0, axis=1)


# -- range keys -----------------------------------------------------------------------------------

@needs_torch
def test_range_index_as_pytorch():
    data = [[float(i * 4 + j) for j in range(4)] for i in range(3)]
    x, tx = ag.tensor(data), torch.tensor(data)
    for key in (range(2), range(1, 3), (range(0, 3, 2), 1), (slice(None), range(1, 4, 2))):
        assert x[key].tolist() == tx[key].tolist()
    y, ty = x.clone(), tx.clone()
    y[range(1, 3)] = -1.0
    ty[range(1, 3)] = -1.0
    assert y.tolist() == ty.tolist()
    assert not math.isnan(x.sum().item())
