"""Creation functions, conversions, tensor properties and PyTorch's repr format."""

from __future__ import annotations

import math

import numpy as np
import pytest

import arraygrad as ag


# -- creation -------------------------------------------------------------------------------

def test_tensor_infers_dtype_like_pytorch():
    assert ag.tensor([1, 2]).dtype is ag.int64
    assert ag.tensor([1, 2.5]).dtype is ag.float32
    assert ag.tensor([True, False]).dtype is ag.bool
    assert ag.tensor([[1, 2], [3, 4]]).shape == (2, 2)
    assert ag.tensor(3.0).shape == () and ag.tensor(3.0).dtype is ag.float32
    assert ag.tensor([]).shape == (0,) and ag.tensor([]).dtype is ag.float32
    assert ag.tensor([1, 2], dtype=ag.float64).dtype is ag.float64
    assert ag.tensor(np.array([1.0, 2.0])).dtype is ag.float64
    assert ag.tensor(np.array([1, 2], dtype=np.int32)).dtype is ag.int32
    with pytest.raises(ValueError):
        ag.tensor([[1, 2], [3]])


def test_tensor_copies_its_data():
    a = np.array([1.0, 2.0])
    t = ag.tensor(a)
    a[0] = 100.0
    assert t.tolist() == [1.0, 2.0]
    src = ag.tensor([1.0, 2.0])
    copy = ag.tensor(src)
    src.add_(1)
    assert copy.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("array", [np.arange(3, dtype=np.float32), np.arange(6).reshape(2, 3).T,
                                   np.array(2.5), np.ones(2, bool), np.arange(3, dtype=np.uint16),
                                   np.arange(3, dtype=">f4")],
                         ids=["float32", "transposed", "0-d", "bool", "uint16", "big-endian"])
def test_from_numpy_keeps_the_array_when_its_dtype_is_native(array):
    t = ag.from_numpy(array)
    assert t.tolist() == array.tolist()
    native = array.dtype.isnative
    assert np.shares_memory(t.numpy(), array) is native  # a big-endian one is converted
    if native:
        assert t.numpy() is array or t.numpy().base is array or t._data is array


def test_as_tensor_and_from_numpy_share_memory():
    a = np.array([1.0, 2.0, 3.0])
    t = ag.as_tensor(a)
    u = ag.from_numpy(a)
    a[0] = 10.0
    assert t[0].item() == 10.0 and u[0].item() == 10.0
    u[1] = 20.0
    assert a[1] == 20.0
    assert t.dtype is ag.float64 and u.dtype is ag.float64
    x = ag.tensor([1.0])
    assert ag.as_tensor(x) is x
    assert ag.as_tensor(x, dtype=ag.float64).dtype is ag.float64
    assert ag.as_tensor([1, 2]).tolist() == [1, 2]
    i = np.arange(3, dtype=np.int64)
    assert ag.from_numpy(i).dtype is ag.int64


def test_filled_factories():
    z = ag.zeros(2, 3)
    assert z.shape == (2, 3) and z.dtype is ag.float32 and z.sum().item() == 0
    assert ag.zeros((2, 3)).shape == (2, 3)
    assert ag.ones(3, dtype=ag.int32).tolist() == [1, 1, 1]
    assert ag.ones(3, dtype=ag.int32).dtype is ag.int32
    assert ag.empty(2, 2).shape == (2, 2)
    assert ag.full((2,), 7).dtype is ag.int64 and ag.full((2,), 7).tolist() == [7, 7]
    assert ag.full((2,), 1.5).dtype is ag.float32
    assert ag.full((2,), True).dtype is ag.bool
    assert ag.full((1, 2), 3.0, dtype=ag.float64).tolist() == [[3.0, 3.0]]
    assert ag.zeros(0).shape == (0,)
    with pytest.raises(RuntimeError):
        ag.zeros(-1)


def test_arange_int_and_float():
    a = ag.arange(5)
    assert a.dtype is ag.int64 and a.tolist() == [0, 1, 2, 3, 4]
    assert ag.arange(2, 8, 2).tolist() == [2, 4, 6]
    assert ag.arange(5, 0, -2).tolist() == [5, 3, 1]
    f = ag.arange(0, 1, 0.25)
    assert f.dtype is ag.float32 and f.tolist() == [0.0, 0.25, 0.5, 0.75]
    assert ag.arange(3.0).tolist() == [0.0, 1.0, 2.0]
    assert ag.arange(1, 2.5, 0.5).tolist() == [1.0, 1.5, 2.0]
    assert len(ag.arange(0, 1, 0.1)) == 10
    assert ag.arange(3, dtype=ag.float64).dtype is ag.float64
    assert ag.arange(0).shape == (0,)
    with pytest.raises(RuntimeError):
        ag.arange(0, 5, 0)


def test_linspace_and_eye():
    ls = ag.linspace(0, 1, 5)
    assert ls.dtype is ag.float32 and ls.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert ag.linspace(-1, 1, 1).tolist() == [-1.0]
    assert ag.linspace(2, 3, 3, dtype=ag.float64).dtype is ag.float64
    assert ag.eye(2).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert ag.eye(2, 3).shape == (2, 3)
    assert ag.eye(2, dtype=ag.int64).tolist() == [[1, 0], [0, 1]]


def test_random_factories_and_seeding():
    ag.manual_seed(123)
    a, b = ag.rand(4), ag.randn(2, 3)
    ag.manual_seed(123)
    a2, b2 = ag.rand(4), ag.randn(2, 3)
    assert a.tolist() == a2.tolist() and b.tolist() == b2.tolist()
    assert all(0.0 <= v < 1.0 for v in a.tolist())
    assert ag.randn(3, dtype=ag.float64).dtype is ag.float64
    r = ag.randint(0, 5, (100,))
    assert r.dtype is ag.int64 and r.shape == (100,)
    assert all(0 <= v < 5 for v in r.tolist())
    assert all(0 <= v < 3 for v in ag.randint(3, (10,)).tolist())
    assert ag.randint(0, 5, (2,), dtype=ag.int32).dtype is ag.int32
    p = ag.randperm(6)
    assert p.dtype is ag.int64 and sorted(p.tolist()) == list(range(6))
    ag.manual_seed(7)
    p1 = ag.randperm(10).tolist()
    ag.manual_seed(7)
    assert ag.randperm(10).tolist() == p1
    g = ag.Generator().manual_seed(5)
    x = ag.rand(3, generator=g)
    g.manual_seed(5)
    assert ag.rand(3, generator=g).tolist() == x.tolist()
    with pytest.raises(RuntimeError):
        ag.rand(2, dtype=ag.int64)


def test_like_factories_keep_shape_dtype_device():
    x = ag.ones(2, 3, dtype=ag.float64)
    for fn in (ag.zeros_like, ag.ones_like, ag.empty_like, ag.rand_like, ag.randn_like):
        y = fn(x)
        assert y.shape == (2, 3) and y.dtype is ag.float64 and y.device == x.device
        assert not y.requires_grad
    assert ag.zeros_like(x).sum().item() == 0 and ag.ones_like(x).sum().item() == 6
    assert ag.full_like(x, 4).tolist() == [[4.0] * 3] * 2
    assert ag.full_like(x, 4).dtype is ag.float64
    assert ag.zeros_like(x, dtype=ag.int32).dtype is ag.int32
    i = ag.randint_like(ag.zeros(5, dtype=ag.int64), 3)
    assert i.dtype is ag.int64 and all(0 <= v < 3 for v in i.tolist())
    assert ag.ones_like(x, requires_grad=True).requires_grad


def test_dtype_device_requires_grad_kwargs():
    t = ag.zeros(2, dtype=ag.float64, device="cpu", requires_grad=True)
    assert t.dtype is ag.float64 and t.device == ag.device("cpu") and t.requires_grad
    assert t.is_leaf and t.grad is None
    assert ag.tensor([1.0], requires_grad=True).requires_grad
    assert ag.randn(2, requires_grad=True).requires_grad
    assert ag.arange(3.0, requires_grad=True).requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        ag.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        ag.zeros(2, dtype=ag.int64, requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        ag.tensor([1, 2]).requires_grad_()


# -- conversions and properties ------------------------------------------------------------------

def test_numpy_shares_memory_and_refuses_requires_grad():
    t = ag.tensor([1.0, 2.0])
    a = t.numpy()
    assert isinstance(a, np.ndarray) and a.dtype == np.float32
    a[0] = 5.0
    assert t[0].item() == 5.0
    r = ag.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        r.numpy()
    assert r.detach().numpy().tolist() == [1.0]


def test_item_tolist_and_python_conversions():
    assert ag.tensor(2.5).item() == 2.5 and isinstance(ag.tensor(2.5).item(), float)
    assert ag.tensor([7]).item() == 7 and isinstance(ag.tensor([7]).item(), int)
    assert ag.tensor([[True]]).item() is True
    assert ag.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert ag.tensor(3).tolist() == 3
    assert float(ag.tensor(1.5)) == 1.5 and int(ag.tensor(3)) == 3
    assert [10, 20, 30][ag.tensor(1)] == 20
    assert bool(ag.tensor([1.0])) is True


def test_shape_size_dim_numel_len_iteration():
    t = ag.zeros(2, 3, 4)
    assert t.shape == (2, 3, 4) and isinstance(t.shape, ag.Size)
    assert t.size() == (2, 3, 4) and t.size(1) == 3 and t.size(-1) == 4
    assert repr(t.shape) == "arraygrad.Size([2, 3, 4])"
    assert t.dim() == 3 and t.ndim == 3 and t.numel() == 24 and ag.numel(t) == 24
    assert len(t) == 2
    rows = list(ag.tensor([[1, 2], [3, 4]]))
    assert len(rows) == 2 and rows[1].tolist() == [3, 4]
    assert [r.item() for r in ag.tensor([5, 6])] == [5, 6]
    with pytest.raises(TypeError):
        len(ag.tensor(1.0))
    with pytest.raises(TypeError):
        iter(ag.tensor(1.0))
    with pytest.raises(IndexError):
        t.size(3)


def test_array_protocol():
    t = ag.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = np.asarray(t)
    assert a.shape == (2, 2) and a.dtype == np.float32
    assert np.asarray(t, dtype=np.float64).dtype == np.float64
    assert np.array(ag.tensor([1, 2])).tolist() == [1, 2]


def test_dtype_conversions():
    t = ag.tensor([1.5, -2.5])
    assert t.double().dtype is ag.float64
    assert t.float().dtype is ag.float32
    assert t.half().dtype is ag.float16
    assert t.long().dtype is ag.int64 and t.long().tolist() == [1, -2]
    assert t.int().dtype is ag.int32
    assert t.bool().tolist() == [True, True]
    assert t.to(ag.float64).dtype is ag.float64
    assert t.to(dtype=ag.int64).tolist() == [1, -2]
    assert t.to(ag.float32) is t
    assert t.type(ag.float64).dtype is ag.float64
    assert t.type() == "arraygrad.FloatTensor"  # PyTorch: torch.FloatTensor
    assert t.to(ag.zeros(1, dtype=ag.float64)).dtype is ag.float64
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = x.double()
    assert y.grad_fn is not None
    (y * y).sum().backward()
    assert x.grad.dtype is ag.float32 and x.grad.tolist() == [2.0, 4.0]


def test_to_cpu_and_device_parsing():
    t = ag.tensor([1.0])
    assert t.to("cpu") is t
    assert t.cpu() is t
    assert t.to(ag.device("cpu"), ag.float64).dtype is ag.float64
    assert t.device == ag.device("cpu") and str(t.device) == "cpu"
    assert not t.is_cuda
    d = ag.device("cuda:1")
    assert d.type == "cuda" and d.index == 1
    assert repr(d) == "device(type='cuda', index=1)" and str(d) == "cuda:1"
    assert ag.device("cuda", 2) == ag.device("cuda:2") == "cuda:2"
    assert ag.device("cpu").index is None
    assert repr(ag.device("cpu")) == "device(type='cpu')"
    with pytest.raises(RuntimeError):
        ag.device("cuda:x")
    with pytest.raises(RuntimeError):
        ag.device("cuda:1", 1)


def test_new_factories_and_type_helpers():
    x = ag.zeros(2, dtype=ag.float64)
    assert x.new_zeros(3).dtype is ag.float64 and x.new_zeros(3).shape == (3,)
    assert x.new_ones((2, 2)).sum().item() == 4
    assert x.new_full((2,), 5).tolist() == [5.0, 5.0]
    assert x.new_tensor([1, 2]).dtype is ag.float64
    assert ag.is_tensor(x) and not ag.is_tensor([1])
    assert x.element_size() == 8 and x.is_floating_point()


# -- repr --------------------------------------------------------------------------------------

REPRS = [
    (lambda: ag.tensor([1.0, 2.0], requires_grad=True), "tensor([1., 2.], requires_grad=True)"),
    (lambda: ag.tensor([1.0, 5.0], requires_grad=True).mean(),
     "tensor(3., grad_fn=<MeanBackward0>)"),
    (lambda: ag.tensor([[1.0, 2.5], [5.0, 8.5]]),
     "tensor([[1.0000, 2.5000],\n        [5.0000, 8.5000]])"),
    (lambda: ag.tensor([28.0, 64.0, 108.0]), "tensor([ 28.,  64., 108.])"),
    (lambda: ag.tensor([1.0, 2.0]).exp() + 3, "tensor([ 5.7183, 10.3891])"),
    (lambda: ag.full((4,), 20200910.0), "tensor([20200910., 20200910., 20200910., 20200910.])"),
    (lambda: ag.tensor([1e-5, 1e3]), "tensor([1.0000e-05, 1.0000e+03])"),
    (lambda: ag.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    (lambda: ag.tensor([1.0, 2.0], dtype=ag.float64), "tensor([1., 2.], dtype=arraygrad.float64)"),
    (lambda: ag.tensor([1.0, 2.0], dtype=ag.float64, requires_grad=True),
     "tensor([1., 2.], dtype=arraygrad.float64, requires_grad=True)"),
    (lambda: ag.tensor([True, False]), "tensor([ True, False])"),
    (lambda: ag.tensor([]), "tensor([])"),
    (lambda: ag.zeros(0, 3), "tensor([], size=(0, 3))"),
    (lambda: ag.tensor([], dtype=ag.int64), "tensor([], dtype=arraygrad.int64)"),
    (lambda: ag.tensor(3.5), "tensor(3.5000)"),
    (lambda: ag.tensor(0.0), "tensor(0.)"),
    (lambda: ag.tensor(7), "tensor(7)"),
    (lambda: ag.tensor([1, -20], dtype=ag.int32), "tensor([  1, -20], dtype=arraygrad.int32)"),
    (lambda: ag.tensor([0.5, 1.0], dtype=ag.float16), "tensor([0.5000, 1.0000], dtype=arraygrad.float16)"),
    (lambda: ag.tensor([-1.0, 2.0]), "tensor([-1.,  2.])"),
    (lambda: ag.tensor([float("nan"), float("inf"), 1.0]), "tensor([nan, inf, 1.])"),
    (lambda: ag.tensor([0.0, 1e-5]), "tensor([0.0000e+00, 1.0000e-05])"),
    (lambda: ag.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    (lambda: ag.zeros(2, 2, 2),
     "tensor([[[0., 0.],\n         [0., 0.]],\n\n        [[0., 0.],\n         [0., 0.]]])"),
    (lambda: ag.arange(2000), "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])"),
    (lambda: ag.arange(2000.0),
     "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
     "        1.9990e+03])"),
    (lambda: ag.arange(1100).reshape(1100, 1),
     "tensor([[   0],\n        [   1],\n        [   2],\n        ...,\n        [1097],\n"
     "        [1098],\n        [1099]])"),
    (lambda: ag.arange(12.0) + 0.5,
     "tensor([ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n"
     "         8.5000,  9.5000, 10.5000, 11.5000])"),
]


@pytest.mark.parametrize("make, expected", REPRS, ids=[e.replace("\n", "|")[:50] for _, e in REPRS])
def test_repr_matches_pytorch_format(make, expected):
    assert repr(make()) == expected


def test_repr_of_grad_fn_names():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    assert repr(x * 2) == "tensor([2., 4.], grad_fn=<MulBackward0>)"
    assert repr(x.sum()) == "tensor(3., grad_fn=<SumBackward0>)"
    assert repr(x + 1) == "tensor([2., 3.], grad_fn=<AddBackward0>)"


def test_repr_with_default_dtype_float64():
    ag.set_default_dtype(ag.float64)
    try:
        assert repr(ag.tensor([1.0, 2.0])) == "tensor([1., 2.])"
        assert repr(ag.tensor([1.0], dtype=ag.float32)) == "tensor([1.], dtype=arraygrad.float32)"
    finally:
        ag.set_default_dtype(ag.float32)


def test_summarized_repr_is_short():
    text = repr(ag.ones(100, 100))
    assert "..." in text and text.count("\n") < 20
    assert repr(ag.arange(1000)).count("...") == 0
    assert repr(ag.arange(1001)).count("...") == 1
