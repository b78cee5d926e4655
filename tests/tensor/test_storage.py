"""Storages and addresses: ``data_ptr``, ``untyped_storage``, ``storage``, ``storage_offset``,
the storage classes, ``set_``, ``is_set_to``, ``share_memory_`` (``arraygrad.storage``,
``arraygrad.tensor_storage``)."""

import os
import pickle
import warnings

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

# views PyTorch and arraygrad both make without a copy, by the same calls
VIEWS = {
    "self": lambda t: t,
    "row": lambda t: t[1],
    "slice": lambda t: t[:, 1:],
    "step": lambda t: t[..., ::2],
    "transpose": lambda t: t.transpose(0, 2),
    "reshape": lambda t: t.reshape(6, 4),
    "view": lambda t: t.view(-1)[5:],
    "expand": lambda t: t[0, :1].expand(3, 4),
    "scalar": lambda t: t[1, 2, 3],
    "narrow": lambda t: t.narrow(2, 1, 2),
    "detach": lambda t: t[1].detach(),
    "unsqueeze": lambda t: t[:, 2].unsqueeze(0),
}


def _base(lib):
    return lib.arange(24.0).reshape(2, 3, 4)


@needs_torch
@pytest.mark.parametrize("name", sorted(VIEWS))
def test_views_share_the_storage_at_pytorchs_offsets(name):
    make = VIEWS[name]
    mine, theirs = _base(ag), _base(torch)
    v, w = make(mine), make(theirs)
    assert v.storage_offset() == w.storage_offset()
    assert v.untyped_storage().data_ptr() == mine.untyped_storage().data_ptr()
    assert v.untyped_storage() is mine.untyped_storage()
    assert v.data_ptr() - mine.data_ptr() == w.data_ptr() - theirs.data_ptr()
    assert v.untyped_storage().nbytes() == w.untyped_storage().nbytes() == 96
    assert v.nbytes == w.nbytes and v.itemsize == w.itemsize


def test_copies_do_not_share():
    x = ag.arange(6.0).reshape(2, 3)
    for other in (x.clone(), x.t().contiguous(), x + 0, ag.tensor(x)):
        assert other.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()
        assert other.storage_offset() == 0


def test_in_place_ops_keep_the_address():
    x = ag.zeros(4)
    ptr = x.data_ptr()
    x.add_(1)
    x[1:3] = 5.0
    x.copy_(ag.ones(4))
    assert x.data_ptr() == ptr


@needs_torch
def test_empty_storage_has_address_zero():
    assert ag.empty(0).data_ptr() == torch.empty(0).data_ptr() == 0
    assert ag.empty(0).untyped_storage().data_ptr() == 0
    assert ag.empty(0).const_data_ptr() == 0


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "int64", "bool"])
def test_typed_storage_reads_as_pytorchs(dtype):
    mine = ag.arange(6).to(getattr(ag, dtype)).reshape(2, 3).t()
    theirs = torch.arange(6).to(getattr(torch, dtype)).reshape(2, 3).t()
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        s = mine.storage()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = theirs.storage()
    assert s.tolist() == t.tolist()
    assert (s.size(), len(s), s.nbytes(), s.element_size()) == (t.size(), len(t), t.nbytes(),
                                                                 t.element_size())
    assert s[1] == t[1] and list(s) == list(t)
    assert s.dtype is getattr(ag, dtype) and s.device == mine.device
    assert s.data_ptr() == mine.untyped_storage().data_ptr()
    assert s.untyped() is mine.untyped_storage() and s._untyped_storage is s.untyped()
    assert mine.untyped_storage().tolist() == theirs.untyped_storage().tolist()
    legacy = mine.storage_type()
    assert legacy.__name__ == theirs.storage_type().__name__
    assert isinstance(s, legacy) and legacy.dtype is getattr(ag, dtype)
    assert s.type() == t.type()


def test_storage_classes_and_is_storage():
    x = ag.ones(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = x.storage()
    assert isinstance(typed, ag.TypedStorage) and isinstance(typed, ag.FloatStorage)
    assert isinstance(typed, ag.Storage) and not isinstance(typed, ag.DoubleStorage)
    assert isinstance(x.untyped_storage(), (ag.UntypedStorage, ag.StorageBase))
    assert all(ag.is_storage(s) for s in (typed, x.untyped_storage()))
    assert not ag.is_storage(x) and not ag.is_storage([1])
    assert ag.storage.UntypedStorage is ag.UntypedStorage
    with pytest.raises(TypeError, match="not picklable"):
        pickle.dumps(x.untyped_storage())
    u = x.untyped_storage()
    assert u == x[1:].untyped_storage() and hash(u) == hash(x[1:].untyped_storage())
    assert not u.is_cuda and not u.is_sparse and u.get_device() == -1 and not u.is_pinned()
    assert u.element_size() == 1 and u.size() == len(u) == 8


@needs_torch
def test_storages_made_on_their_own():
    with pytest.warns(UserWarning, match="TypedStorage is deprecated"):
        s = ag.FloatStorage([1, 2, 3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.FloatStorage([1, 2, 3])
        assert ag.DoubleStorage(4).size() == torch.DoubleStorage(4).size() == 4
        assert ag.TypedStorage([1, 2], dtype=ag.int32).tolist() == \
            torch.TypedStorage([1, 2], dtype=torch.int32).tolist()
        assert ag.TypedStorage().size() == 0 and ag.TypedStorage().dtype is ag.float32
        assert ag.TypedStorage(wrap_storage=s.untyped(), dtype=ag.int32).size() == 3
    assert s.tolist() == t.tolist() and type(s) is ag.FloatStorage
    assert ag.UntypedStorage(5).nbytes() == torch.UntypedStorage(5).nbytes() == 5
    assert ag.UntypedStorage([1, 2, 255]).tolist() == [1, 2, 255]
    with pytest.raises(RuntimeError, match="byte values"):
        ag.UntypedStorage([1, 256])
    with pytest.raises(RuntimeError, match="non-negative"):
        ag.UntypedStorage(-1)
    # a tensor over a storage of its own dtype shares its memory
    y = ag.empty(0).set_(s)
    y[0] = 9.0
    assert s.tolist() == [9.0, 2.0, 3.0] and y.data_ptr() == s.data_ptr()
    assert y.untyped_storage() is s.untyped()


@needs_torch
def test_set_to_a_tensor_shares_its_memory():
    for lib in (ag, torch):
        x = lib.arange(6.0).reshape(2, 3).t()
        y = lib.zeros(1)
        before = y._version
        assert y.set_(x) is y and y._version == before + 1
        assert y.is_set_to(x) and x.is_set_to(y)
        assert tuple(y.shape) == (3, 2) and y.stride() == (1, 3)
        y[0, 0] = 7.0
        assert x[0, 0].item() == 7.0
        assert not y.is_set_to(x[1:]) and not x.is_set_to(x.reshape(6))
    z = ag.zeros(3)
    assert z.set_().shape == ag.Size([0]) and z.dtype is ag.float32


@needs_torch
def test_set_to_a_storage_as_pytorch():
    for lib in (ag, torch):
        x = lib.arange(6.0)
        y = lib.zeros(1).set_(x.untyped_storage(), 1, (2, 2), (2, 1))
        assert y.tolist() == [[1.0, 2.0], [3.0, 4.0]] and y.storage_offset() == 1
        assert y.untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
        assert lib.zeros(1).set_(x.untyped_storage(), 2, (3,)).tolist() == [2.0, 3.0, 4.0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert lib.zeros(1).set_(x.storage()).tolist() == x.tolist()


@needs_torch
@pytest.mark.parametrize("call, target", [
    (lambda lib: lib.zeros(1, dtype=lib.int32).set_(lib.ones(2)), "tensor"),
    (lambda lib: lib.zeros(1, dtype=lib.float16).set_(lib.ones(2)), "tensor"),
    (lambda lib: lib.zeros(1, dtype=lib.float64).set_(lib.ones(2, dtype=lib.int64)), "tensor"),
    (lambda lib: lib.zeros(1, requires_grad=True).set_(lib.ones(2)), "leaf"),
])
def test_set_refusals_match_pytorch(call, target):
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as mine:
        call(ag)
    assert str(mine.value) == str(theirs.value)


def test_set_refuses_what_arraygrad_cannot_view():
    x = ag.arange(6.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="Expected a Storage of type Double"):
            ag.zeros(1, dtype=ag.float64).set_(x.storage())
    with pytest.raises(RuntimeError, match="cannot reinterpret"):
        ag.zeros(1, dtype=ag.float64).set_(x.untyped_storage())
    with pytest.raises(RuntimeError, match="does not grow storages"):
        ag.zeros(1).set_(x.untyped_storage(), 4, (3,))
    with pytest.raises(RuntimeError, match="row-major"):
        ag.zeros(1).set_(x.untyped_storage(), 0, (2, 3), (1, 2))
    y = ag.zeros(2)
    with pytest.raises(TypeError):
        y.set_(x, 1)
    assert y.tolist() == [0.0, 0.0]  # nothing changed on error


def test_set_to_a_tensor_in_the_graph_passes_the_gradient_on():
    w = ag.ones(3, requires_grad=True)
    y = ag.zeros(1).set_(w)
    assert y.grad_fn.name() == "AliasBackward0"
    (y * 2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


def test_view_becomes_a_plain_tensor_after_set():
    base = ag.zeros(4)
    view = base[1:]
    view.set_(ag.arange(6.0))
    view[0] = 5.0
    assert base.tolist() == [0.0, 0.0, 0.0, 0.0] and view._base is None


@needs_torch
def test_is_shared_and_share_memory():
    x = ag.ones(3)
    assert not x.is_shared() and not x.untyped_storage().is_shared()
    assert x.share_memory_() is x and x.is_shared() and x.tolist() == [1.0, 1.0, 1.0]
    assert x.share_memory_() is x
    assert torch.ones(3).share_memory_().is_shared()
    with pytest.raises(RuntimeError, match="also another tensor's"):
        ag.ones(4)[1:].share_memory_()
    y = ag.ones(2)
    alias = y.detach()
    with pytest.raises(RuntimeError, match="also another tensor's"):
        y.share_memory_()
    assert not y.is_shared() and alias.data_ptr() == y.data_ptr()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_shared_memory_is_seen_by_a_forked_child():
    x = ag.zeros(2).share_memory_()
    pid = os.fork()
    if pid == 0:  # the child writes, the parent reads
        x[0] = 3.0
        os._exit(0)
    os.waitpid(pid, 0)
    assert x.tolist() == [3.0, 0.0]


def test_storage_type_of_non_cpu_refused():
    x = ag.ones(2, device="strict")
    with pytest.raises(RuntimeError, match="CPU tensors only"):
        x.storage_type()


def test_strict_backend_reports_addresses_too():
    x = ag.arange(6.0, device="strict").reshape(2, 3)
    assert x[1].storage_offset() == 3
    assert x[1].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()


def test_a_backend_without_addresses_raises_pytorchs_error():
    from arraygrad.func import vmap

    def probe(t):
        with pytest.raises(RuntimeError, match="doesn't have storage"):
            t.data_ptr()
        with pytest.raises(RuntimeError, match="doesn't have storage"):
            t.untyped_storage()
        return t

    vmap(probe)(ag.ones(2, 3))


@pytest.mark.parametrize("cls_name, data, order, expected", [
    ("ByteStorage", b"abc", "native", [97, 98, 99]),
    ("FloatStorage", b"\x00\x00\x80?\x00\x00\x00@", "little", [1.0, 2.0]),
    ("FloatStorage", b"?\x80\x00\x00@\x00\x00\x00", "big", [1.0, 2.0]),
    ("ShortStorage", b"\x01\x00\x00\x02", "big", [256, 2]),
])
def test_from_buffer_copies_the_bytes_as_pytorch(cls_name, data, order, expected):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        storage = getattr(ag, cls_name).from_buffer(data, byte_order=order)
    assert list(storage) == expected
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert list(getattr(torch, cls_name).from_buffer(data, byte_order=order)) == expected


def test_from_buffer_counts_offsets_and_refuses_ragged_buffers():
    assert list(ag.ByteStorage.from_buffer(b"abcdef", count=2, offset=1)) == [98, 99]
    with pytest.raises(ValueError, match="multiple of element size"):
        ag.FloatStorage.from_buffer(b"abc")
    with pytest.raises(ValueError, match="byte_order"):
        ag.ByteStorage.from_buffer(b"a", byte_order="middle")
