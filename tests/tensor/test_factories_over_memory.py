"""``asarray``, ``frombuffer`` and ``from_file``: factories sharing memory that exists already
(``arraygrad.creation_memory``)."""

import array
import warnings

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _same(mine, theirs):
    assert tuple(mine.shape) == tuple(theirs.shape)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert mine.tolist() == theirs.tolist()
    assert mine.requires_grad == theirs.requires_grad


# -- asarray --------------------------------------------------------------------------------
def test_asarray_of_a_tensor_is_the_tensor():
    x = ag.ones(2, 3)
    assert ag.asarray(x) is x
    copied = ag.asarray(x, copy=True)
    assert copied.data_ptr() != x.data_ptr() and copied.tolist() == x.tolist()
    as64 = ag.asarray(x, dtype=ag.float64)
    assert as64.dtype is ag.float64 and as64.data_ptr() != x.data_ptr()
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype "
                                         "'Double'"):
        ag.asarray(x, dtype=ag.float64, copy=False)
    with pytest.raises(ValueError, match="can't alias tensor from device 'cpu'"):
        ag.asarray(x, device="strict", copy=False)
    moved = ag.asarray(x, device="strict")
    assert moved.device.type == "strict"


def test_asarray_requires_grad_as_pytorch():
    x = ag.ones(2)
    assert ag.asarray(x, requires_grad=True) is x and x.requires_grad  # set in place
    w = ag.ones(2, requires_grad=True)
    y = w * 2
    with pytest.warns(UserWarning, match="unspecified requires_grad"):
        assert ag.asarray(y) is y
    z = ag.asarray(y, requires_grad=False)
    assert z is not y and not z.requires_grad and z.data_ptr() == y.data_ptr()
    assert ag.asarray(y, requires_grad=True) is y
    c = ag.asarray(y, copy=True, requires_grad=True)
    assert c.grad_fn.name() == "CloneBackward0"
    c.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0]


@needs_torch
def test_asarray_requires_grad_matches_pytorch_where_both_agree():
    for lib in (ag, torch):
        x = lib.ones(2)
        out = lib.asarray(x, requires_grad=True)
        assert out is x and x.requires_grad


def test_asarray_of_numpy_shares_memory():
    a = np.arange(4.0)
    t = ag.asarray(a)
    assert t.dtype is ag.float64 and t.data_ptr() == a.ctypes.data
    t[0] = 9.0
    assert a[0] == 9.0
    assert ag.asarray(a, copy=True).data_ptr() != a.ctypes.data
    with pytest.raises(ValueError, match="can't alias"):
        ag.asarray(a, dtype=ag.float32, copy=False)
    small = np.ones(2, dtype=np.uint8)  # kept as uint8, sharing memory
    assert ag.asarray(small).dtype is ag.uint8
    assert ag.asarray(small, copy=False).data_ptr() == small.ctypes.data
    assert ag.asarray(np.float64(2.5)).tolist() == 2.5


@needs_torch
@pytest.mark.parametrize("make", [
    lambda: [1, 2], lambda: [1.0, 2], lambda: (1.0, 2.0), lambda: 3.5, lambda: [[1, 2], [3, 4]],
    lambda: [True, False], lambda: np.arange(3.0), lambda: np.ones((2, 2), dtype=np.float32),
    lambda: array.array("f", [1, 2]), lambda: bytearray(8),
    lambda: memoryview(array.array("d", [1, 2])),
])
def test_asarray_values_match_pytorch(make):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(ag.asarray(make()), torch.asarray(make()))
        _same(ag.asarray(make(), dtype=ag.float64), torch.asarray(make(), dtype=torch.float64))


@needs_torch
@pytest.mark.parametrize("make", [lambda: [1.0, 2], lambda: bytearray(3)])
def test_asarray_refusals_match_pytorch(make):
    with pytest.raises(ValueError) as theirs:
        torch.asarray(make(), copy=False) if isinstance(make(), list) else torch.asarray(make())
    with pytest.raises(ValueError) as mine:
        ag.asarray(make(), copy=False) if isinstance(make(), list) else ag.asarray(make())
    assert str(mine.value) == str(theirs.value)


def test_asarray_of_a_buffer_shares_it():
    buf = bytearray(8)
    t = ag.asarray(buf)
    t[1] = 1.0
    assert bytes(buf[4:]) == np.float32(1.0).tobytes()


# -- frombuffer -----------------------------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("make, kw", [
    (lambda: bytearray(range(16)), {"dtype": "float32"}),
    (lambda: bytearray(range(16)), {"dtype": "int32", "count": 2, "offset": 4}),
    (lambda: array.array("i", [1, 2, 3]), {"dtype": "int32"}),
    (lambda: array.array("d", [1.5, 2.5]), {"dtype": "float64", "offset": 8}),
    (lambda: bytearray(b"\x00\x3c\x00\x40"), {"dtype": "float16"}),
    (lambda: bytearray(b"\x01\x00\x01"), {"dtype": "bool"}),
    (lambda: bytearray(16), {"dtype": "int64", "requires_grad": False}),
])
def test_frombuffer_matches_pytorch(make, kw):
    mk = {k: getattr(ag, v) if k == "dtype" else v for k, v in kw.items()}
    tk = {k: getattr(torch, v) if k == "dtype" else v for k, v in kw.items()}
    _same(ag.frombuffer(make(), **mk), torch.frombuffer(make(), **tk))


@needs_torch
@pytest.mark.parametrize("make, kw", [
    (lambda: bytearray(7), {}), (lambda: bytearray(16), {"count": 4, "offset": 4}),
    (lambda: bytearray(0), {}), (lambda: bytearray(8), {"offset": -1}),
    (lambda: bytearray(8), {"count": 0}), (lambda: bytearray(8), {"offset": 8}),
])
def test_frombuffer_refusals_match_pytorch(make, kw):
    with pytest.raises(ValueError) as theirs:
        torch.frombuffer(make(), dtype=torch.float32, **kw)
    with pytest.raises(ValueError) as mine:
        ag.frombuffer(make(), dtype=ag.float32, **kw)
    assert str(mine.value) == str(theirs.value)


def test_frombuffer_shares_and_warns_on_read_only():
    buf = bytearray(8)
    t = ag.frombuffer(buf, dtype=ag.float32, requires_grad=True)
    assert t.requires_grad
    t.detach()[0] = 2.0
    assert bytes(buf[:4]) == np.float32(2.0).tobytes()
    with pytest.warns(UserWarning, match="not writable"):
        ro = ag.frombuffer(b"\x00" * 8, dtype=ag.float32)
    assert ro.tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="dtype"):
        ag.frombuffer(buf, dtype="float32")
    with pytest.raises(TypeError):
        ag.frombuffer([1, 2], dtype=ag.float32)


# -- from_file ------------------------------------------------------------------------------
@needs_torch
def test_from_file_reads_like_pytorch(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(16)))
    _same(ag.from_file(str(path), size=4, dtype=ag.int32),
          torch.from_file(str(path), size=4, dtype=torch.int32))
    _same(ag.from_file(str(path), size=4), torch.from_file(str(path), size=4))
    _same(ag.from_file(str(path)), torch.from_file(str(path)))
    for call in (lambda lib: lib.from_file(str(path), size=8, dtype=lib.int32),
                 lambda lib: lib.from_file(str(tmp_path / "missing.bin"), size=4)):
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        with pytest.raises(RuntimeError) as mine:
            call(ag)
        assert str(mine.value) == str(theirs.value)
    with pytest.raises(TypeError, match="'shared' must be bool"):
        ag.from_file(str(path), shared=1, size=1)


def test_from_file_shared_writes_reach_the_file(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(16))
    t = ag.from_file(str(path), shared=True, size=4, dtype=ag.int32)
    t[0] = 7
    t.add_(1)
    del t
    assert np.frombuffer(path.read_bytes(), dtype=np.int32).tolist() == [8, 1, 1, 1]
    private = ag.from_file(str(path), shared=False, size=4, dtype=ag.int32)
    private[0] = 100
    del private
    assert np.frombuffer(path.read_bytes(), dtype=np.int32).tolist()[0] == 8
    grown = ag.from_file(str(tmp_path / "new.bin"), shared=True, size=8, dtype=ag.int32)
    assert grown.tolist() == [0] * 8 and (tmp_path / "new.bin").stat().st_size == 32
