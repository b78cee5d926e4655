"""``Tensor`` as an object (``arraygrad.tensor_protocol``): what it is, the legacy and
Python-callable methods, ``grad_dtype``, the refused device moves, the deprecated forms."""

import warnings

import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck
from torch_errors import needs_torch, same_error_as_torch, torch

FLAGS = ["is_cpu", "is_meta", "is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn",
         "is_vulkan", "is_xla", "is_ipu", "is_maia", "is_mtia", "is_nested", "is_cuda"]


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_what_a_tensor_is_matches_pytorch(dtype):
    mine, theirs = ag.ones(2, 3, dtype=getattr(ag, dtype)), torch.ones(2, 3, dtype=getattr(torch, dtype))
    for flag in FLAGS:
        assert getattr(mine, flag) == getattr(theirs, flag), flag
    for method in ("get_device", "ndimension", "is_signed", "is_distributed", "dim_order"):
        assert getattr(mine, method)() == getattr(theirs, method)(), method
    assert mine.name is theirs.name is None
    assert mine.is_same_size(ag.ones(2, 3)) and not mine.is_same_size(mine.t())
    assert ag.get_device(mine) == -1 and ag.is_signed(mine) == theirs.is_signed()
    assert ag.is_same_size(mine, mine) and not ag.is_distributed(mine)
    with pytest.raises(AttributeError):
        mine.name = "x"
    assert not ag.ones(2, device="strict").is_cpu


@needs_torch
def test_refused_device_moves_raise_as_a_cpu_pytorch():
    for name in ("ipu", "xpu", "mtia"):
        with pytest.raises(Exception) as theirs:
            getattr(torch.ones(2), name)()
        with pytest.raises(Exception) as mine:
            getattr(ag.ones(2), name)()
        assert type(mine.value) is type(theirs.value)
        assert str(mine.value) == str(theirs.value).split(". Ensure")[0]


def test_volatile_warns_and_reinforce_is_absent():
    x = ag.ones(2)
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert x.volatile is False
    with pytest.warns(UserWarning, match="no effect"):
        x.volatile = True
    with pytest.raises(AttributeError):
        x.reinforce  # noqa: B018 - listed in the absences table


def test_to_dense_of_a_dense_tensor_is_itself():
    x = ag.ones(2)
    assert x.to_dense() is x and x.to_dense(ag.float64).dtype is ag.float64


# -- the legacy constructor method ---------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("args, kw", [
    ((), {}), ((2, 3), {}), (([1, 2],), {}), (((2, 3),), {}), ((3,), {}),
    ((), {"data": [1, 2]}), ((), {"size": (2, 3)}),
])
def test_new_matches_pytorch(args, kw):
    mine = ag.arange(3.0, dtype=ag.float64).new(*args, **kw)
    theirs = torch.arange(3.0, dtype=torch.float64).new(*args, **kw)
    assert tuple(mine.shape) == tuple(theirs.shape) and mine.dtype is ag.float64
    if args and isinstance(args[0], list) or "data" in kw:
        assert mine.tolist() == theirs.tolist()


@needs_torch
def test_new_of_a_tensor_or_storage_shares_memory():
    x = ag.arange(3.0)
    assert x.new(ag.Size([2])).shape == ag.Size([2])
    alias = x.new(x)
    assert alias is not x and alias.data_ptr() == x.data_ptr()
    assert x.new(other=x).data_ptr() == x.data_ptr()
    over = x.new(x.untyped_storage())
    assert over.tolist() == [0.0, 1.0, 2.0] and over.data_ptr() == x.data_ptr()
    assert x.new(storage=x.untyped_storage()).data_ptr() == x.data_ptr()
    w = ag.ones(2, requires_grad=True)
    assert ag.zeros(1).new(w).grad_fn.name() == "AliasBackward0"
    for bad, match in ((2.5, "must be a sequence"), ("a", "invalid data type 'str'"),
                       (ag.ones(2, dtype=ag.int64), "dtype")):
        with pytest.raises(TypeError, match=match):
            x.new(bad)
    with pytest.raises(TypeError):
        x.new([1.0], dtype=ag.float64)  # PyTorch's new() takes no dtype either
    with pytest.raises(TypeError):
        torch.ones(2).new([1.0], dtype=torch.float64)


# -- Python callables over the elements ----------------------------------------------------
@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_apply_map_map2_match_pytorch(dtype):
    def make(lib):
        return lib.tensor([[0, 1, 2], [3, 4, 5]]).to(getattr(lib, dtype))

    def seen(lib):
        found = []
        make(lib).apply_(lambda v: found.append(type(v)) or v)
        return found

    assert seen(ag) == seen(torch)
    a = make(ag).apply_(lambda v: v * 1.7)
    b = make(torch).apply_(lambda v: v * 1.7)
    assert a.reshape(-1).tolist() == pytest.approx(b.reshape(-1).tolist())
    a = make(ag).map_(make(ag)[0], lambda u, v: u + v)
    b = make(torch).map_(make(torch)[0], lambda u, v: u + v)
    assert a.tolist() == b.tolist()
    a = make(ag).map2_(make(ag)[0], make(ag)[:, :1], lambda u, v, w: u * v - w)
    b = make(torch).map2_(make(torch)[0], make(torch)[:, :1], lambda u, v, w: u * v - w)
    assert a.tolist() == b.tolist()


@needs_torch
@pytest.mark.parametrize("call", [
    lambda lib: lib.ones(2, requires_grad=True).apply_(lambda v: v),
    lambda lib: lib.ones(2).map_(lib.ones(2, requires_grad=True), lambda a, b: a),
    lambda lib: lib.ones(2).apply_(lambda v: "a"),
    lambda lib: lib.ones(2).apply_(lambda v: None),
    lambda lib: lib.ones(2).apply_(3),
    lambda lib: lib.ones(2).map_(lib.ones(2, dtype=lib.int64), lambda a, b: a),
    lambda lib: lib.ones(3).map_(lib.ones(2, 3), lambda a, b: a),
])
def test_apply_map_refusals_match_pytorch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as mine:
        call(ag)
    assert type(mine.value) is type(theirs.value)


def test_apply_bumps_the_version_and_writes_views():
    base = ag.zeros(4)
    view = base[1:3]
    view.apply_(lambda v: v + 2)
    assert base.tolist() == [0.0, 2.0, 2.0, 0.0] and base._version == 1


# -- resize and resize_as (deprecated, out of place) ---------------------------------------
@needs_torch
def test_resize_is_a_view_with_pytorchs_checks():
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        out = ag.arange(6.0).resize(3, 2)
    assert out.shape == ag.Size([3, 2]) and out._base is not None
    with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
        assert ag.ones(2, 3).resize_as(ag.ones(6)).shape == ag.Size([6])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error_as_torch(lambda lib: lib.ones(2, 3).resize(4))
    x = ag.randn(2, 3, dtype=ag.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert gradcheck(lambda t: t.t().resize(6) * 2, (x,))


def test_resize_in_place_keywords():
    assert ag.ones(2).resize_(size=(3,)).shape == ag.Size([3])
    assert ag.resize_as_(ag.ones(2), ag.ones(2, 2)).shape == ag.Size([2, 2])
    with pytest.raises(TypeError, match="multiple values"):
        ag.ones(2).resize_(2, size=(3,))


# -- as_subclass and module_load --------------------------------------------------------------
class MyTensor(ag.Tensor):
    def double_it(self):
        return self * 2


def test_as_subclass_is_an_alias_in_the_graph():
    a = ag.ones(2, requires_grad=True)
    b = a.as_subclass(MyTensor)
    assert type(b) is MyTensor and b.data_ptr() == a.data_ptr()
    assert b.grad_fn.name() == "AliasBackward0" and not b.is_leaf
    b.double_it().sum().backward()
    assert a.grad.tolist() == [2.0, 2.0]
    plain = ag.ones(2).as_subclass(MyTensor)
    assert plain.grad_fn is None and plain._version == 0
    plain.add_(1)
    with pytest.raises(TypeError, match="does not inherit from Tensor"):
        ag.ones(2).as_subclass(int)


def test_as_subclass_gradcheck():
    x = ag.randn(3, dtype=ag.float64, requires_grad=True)
    assert gradcheck(lambda t: t.as_subclass(MyTensor) * t, (x,))


def test_module_load():
    p, other = ag.zeros(2), ag.ones(2, requires_grad=True)
    out = p.module_load(other)
    assert p.tolist() == [1.0, 1.0] and out is not p and not out.requires_grad
    assigned = p.module_load(other, assign=True)
    assert assigned.data_ptr() == other.data_ptr() and not assigned.requires_grad


# -- grad_dtype -----------------------------------------------------------------------------
@needs_torch
@pytest.mark.filterwarnings("ignore:The .grad attribute")  # PyTorch's, for its non-leaf probe
def test_grad_dtype_matches_pytorch():
    for lib in (ag, torch):
        w = lib.ones(2, requires_grad=True)
        assert w.grad_dtype is lib.float32
        w.grad_dtype = lib.float64
        (w * 2).sum().backward()
        (w * 3).sum().backward()
        assert w.grad.dtype is lib.float64 and w.grad.tolist() == [5.0, 5.0]
        v = lib.ones(2, requires_grad=True)
        v.grad_dtype = None
        (v * 2).sum().backward()
        assert v.grad_dtype is None and v.grad.dtype is lib.float32
        v.grad = lib.ones(2, dtype=lib.float64)  # any dtype when None
        u = lib.ones(2, requires_grad=True)
        u.grad_dtype = lib.float64
        with pytest.raises(RuntimeError, match="grad_dtype"):
            u.grad = lib.ones(2)
        for bad in (lambda: (w * 2).grad_dtype, lambda: setattr(w * 2, "grad_dtype", None),
                    lambda: setattr(w, "grad_dtype", "float64")):
            with pytest.raises(RuntimeError, match="grad_dtype"):
                bad()


# -- the deprecated forms and keywords --------------------------------------------------------
@needs_torch
@pytest.mark.parametrize("call", [
    lambda lib, x: x.add(2, x), lambda lib, x: x.clone().add_(2, x),
    lambda lib, x: x.sub(2, x), lambda lib, x: x.clone().sub_(2, x),
    lambda lib, x: lib.add(x, 2, x), lambda lib, x: lib.sub(x, 2, x),
])
def test_deprecated_number_tensor_forms(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = call(torch, torch.tensor([1.0, 2.0]))
    with pytest.warns(UserWarning, match="This overload of .* is deprecated") as record:
        mine = call(ag, ag.tensor([1.0, 2.0]))
    assert mine.tolist() == theirs.tolist()
    assert record[0].filename == __file__
    assert ag.tensor([1.0]).add(ag.tensor([2.0]), alpha=2).tolist() == [5.0]


def test_random_and_uniform_take_from_as_a_keyword():
    x = ag.zeros(2000)
    out = x.clone().random_(**{"from": 2, "to": 5})
    assert set(out.tolist()) == {2.0, 3.0, 4.0}
    assert x.clone().random_(**{"from": 2, "to": None}).min().item() >= 2
    assert x.clone().random_(2, None).min().item() >= 2
    assert set(x.clone().random_(3).tolist()) == {0.0, 1.0, 2.0}
    with pytest.raises(TypeError, match="'to'"):
        x.random_(**{"from": 2})
    with pytest.raises(TypeError, match="multiple values"):
        x.random_(1, **{"from": 2, "to": 5})
    u = x.clone().uniform_(**{"from": 2, "to": 3})
    assert 2 <= u.min().item() and u.max().item() < 3
    with pytest.raises(RuntimeError, match="from=2 > to=1"):
        x.uniform_(**{"from": 2})
    with pytest.raises(TypeError, match="unexpected keyword argument 'frm'"):
        x.uniform_(frm=1)


def test_copy_and_moves_take_non_blocking():
    x = ag.zeros(2)
    assert x.copy_(ag.ones(2), non_blocking=True) is x and x.tolist() == [1.0, 1.0]
    assert x.cpu(memory_format=ag.contiguous_format) is x
    assert x.to("cpu", non_blocking=True) is x
    assert x.type(ag.float64, non_blocking=True).dtype is ag.float64


@needs_torch
def test_type_takes_pytorchs_type_names():
    x = ag.ones(2)
    assert x.type("torch.DoubleTensor").dtype is ag.float64
    assert x.type(ag.DoubleTensor).dtype is ag.float64
    assert x.type("torch.LongTensor").dtype is ag.int64
    assert x.type(ag.float32) is x and x.type("torch.FloatTensor") is x
    with pytest.raises(ValueError) as theirs:
        torch.ones(2).type("float64x")
    with pytest.raises(ValueError) as mine:
        x.type("float64x")
    assert str(mine.value) == str(theirs.value)
    assert x.type() == "arraygrad.FloatTensor"  # PyTorch: torch.FloatTensor


def test_typename():
    assert ag.typename(ag.ones(2)) == ag.ones(2).type()
    assert ag.typename(3) == "int"
    assert ag.typename(ag.nn.Linear(1, 1)).endswith("Linear")


def test_set_default_tensor_type():
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            ag.set_default_tensor_type(ag.DoubleTensor)
        assert ag.get_default_dtype() is ag.float64 and ag.ones(1).dtype is ag.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ag.set_default_tensor_type("torch.HalfTensor")
            assert ag.get_default_dtype() is ag.float16
            with pytest.raises(TypeError, match="only floating-point types"):
                ag.set_default_tensor_type(ag.LongTensor)
            with pytest.raises(TypeError, match="invalid type object"):
                ag.set_default_tensor_type(ag.float64)
            with pytest.raises(TypeError, match="invalid type"):
                ag.set_default_tensor_type("float")
            if not ag.cuda.is_available():
                with pytest.raises(TypeError, match="not available"):
                    ag.set_default_tensor_type("torch.cuda.FloatTensor")
    finally:
        ag.set_default_dtype(ag.float32)
