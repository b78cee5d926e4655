"""Layouts and memory formats as objects (``arraygrad.layouts``), ``memory_format=`` wherever
PyTorch takes it, ``is_contiguous(memory_format=)`` and ``dim_order()`` against PyTorch."""

import copy
import pickle

import pytest
from hypothesis import assume, given, settings, strategies as st

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

LAYOUTS = ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
           "jagged"]
FORMATS = ["contiguous_format", "channels_last", "channels_last_3d", "preserve_format",
           "legacy_contiguous_format"]


def test_layout_and_memory_format_objects():
    for name in LAYOUTS:
        obj = getattr(ag, name)
        assert isinstance(obj, ag.layout) and repr(obj) == f"arraygrad.{name}"
        assert pickle.loads(pickle.dumps(obj)) is obj and copy.deepcopy(obj) is obj
    for name in FORMATS:
        obj = getattr(ag, name)
        assert isinstance(obj, ag.memory_format) and repr(obj) == f"arraygrad.{name}"
        assert pickle.loads(pickle.dumps(obj)) is obj and copy.copy(obj) is obj
    with pytest.raises(TypeError, match="cannot create"):
        ag.layout()
    with pytest.raises(TypeError, match="cannot create"):
        ag.memory_format()
    with pytest.raises(AttributeError):
        ag.strided.name = "other"
    assert ag.ones(2).layout is ag.strided and ag.ones(2).layout != ag.sparse_coo


@needs_torch
def test_the_names_are_pytorchs():
    assert {n for n in dir(torch) if isinstance(getattr(torch, n), torch.layout)
            and not n.startswith("_")} == set(LAYOUTS)
    assert {n for n in dir(torch) if isinstance(getattr(torch, n), torch.memory_format)} == \
        set(FORMATS)


# (shape, permutation) of a tensor made by permuting a contiguous one, then sliced
shapes = st.lists(st.integers(1, 3), min_size=0, max_size=5)


@st.composite
def strided(draw):
    shape = draw(shapes)
    perm = draw(st.permutations(range(len(shape))))
    sliced = draw(st.booleans())
    return shape, perm, sliced


def _make(lib, shape, perm, sliced):
    n = 1
    for s in shape:
        n *= s
    t = lib.arange(float(n)).reshape(shape).permute(*perm) if shape else lib.tensor(1.0)
    if sliced and t.ndim:
        t = t[..., :1]
    return t


@needs_torch
@settings(max_examples=80, deadline=None)
@given(strided())
def test_is_contiguous_and_dim_order_match_pytorch(case):
    mine, theirs = _make(ag, *case), _make(torch, *case)
    # arraygrad reports row-major strides for any contiguous tensor, where PyTorch keeps a
    # size-1 dimension's stride from before the slicing: compare the others
    assume(mine.stride() == theirs.stride())
    for name in FORMATS:
        assert mine.is_contiguous(memory_format=getattr(ag, name)) == \
            theirs.is_contiguous(memory_format=getattr(torch, name)), name
    assert mine.dim_order() == theirs.dim_order()
    for check in (True, [ag.contiguous_format, ag.channels_last]):
        tcheck = check if check is True else [torch.contiguous_format, torch.channels_last]
        try:
            expected = theirs.dim_order(ambiguity_check=tcheck)
        except RuntimeError:
            with pytest.raises(RuntimeError, match="does not have unique dim order"):
                mine.dim_order(ambiguity_check=check)
        else:
            assert mine.dim_order(ambiguity_check=check) == expected


def test_dim_order_checks_its_argument():
    with pytest.raises(TypeError, match="ambiguity_check"):
        ag.ones(2, 3).dim_order(ambiguity_check="yes")
    with pytest.raises(TypeError, match="ambiguity_check"):
        ag.ones(2, 3).dim_order(ambiguity_check=["contiguous"])


# every call taking memory_format=, on a tensor of ``ndim`` dimensions
CALLS = {
    "clone": lambda lib, t, f: t.clone(memory_format=f),
    "torch.clone": lambda lib, t, f: lib.clone(t, memory_format=f),
    "contiguous": lambda lib, t, f: t.contiguous(memory_format=f),
    "to": lambda lib, t, f: t.to(lib.float64, memory_format=f),
    "float": lambda lib, t, f: t.float(memory_format=f),
    "double": lambda lib, t, f: t.double(memory_format=f),
    "half": lambda lib, t, f: t.half(memory_format=f),
    "int": lambda lib, t, f: t.int(memory_format=f),
    "long": lambda lib, t, f: t.long(memory_format=f),
    "bool": lambda lib, t, f: t.bool(memory_format=f),
    "cpu": lambda lib, t, f: t.cpu(memory_format=f),
    "type": lambda lib, t, f: t.type(lib.float64, memory_format=f),
    "empty_like": lambda lib, t, f: lib.empty_like(t, memory_format=f),
    "zeros_like": lambda lib, t, f: lib.zeros_like(t, memory_format=f),
    "ones_like": lambda lib, t, f: lib.ones_like(t, memory_format=f),
    "full_like": lambda lib, t, f: lib.full_like(t, 2.0, memory_format=f),
    "rand_like": lambda lib, t, f: lib.rand_like(t, memory_format=f),
    "randn_like": lambda lib, t, f: lib.randn_like(t, memory_format=f),
    "randint_like": lambda lib, t, f: lib.randint_like(t, 3, memory_format=f),
    "empty": lambda lib, t, f: lib.empty(*t.shape, memory_format=f),
}


def _outcome(fn):
    try:
        out = fn()
    except Exception as error:  # noqa: BLE001 - the class is the measurement
        return type(error)
    return tuple(out.shape)


@needs_torch
@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4, 5), (2, 1, 3, 2, 2)])
def test_memory_format_is_accepted_and_checked_as_pytorch(call, fmt, shape):
    fn = CALLS[call]
    x, y = ag.ones(*shape).t() if len(shape) == 2 else ag.ones(*shape), torch.ones(*shape)
    y = y.t() if len(shape) == 2 else y
    mine = _outcome(lambda: fn(ag, x, getattr(ag, fmt)))
    theirs = _outcome(lambda: fn(torch, y, getattr(torch, fmt)))
    assert mine == theirs
    if isinstance(mine, tuple) and call not in ("contiguous",):
        # accepted: arraygrad's result is row-major whatever the format (docs/differences.md)
        out = fn(ag, x, getattr(ag, fmt))
        assert out.is_contiguous() or out is x


def test_memory_format_refusals_name_the_problem():
    x = ag.ones(2, 3)
    with pytest.raises(TypeError, match="must be torch.memory_format, not str"):
        x.contiguous(memory_format="channels_last")
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last"):
        x.clone(memory_format=ag.channels_last)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        ag.empty(2, memory_format=ag.preserve_format)
    with pytest.raises(TypeError, match="memory_format"):
        x.is_contiguous(memory_format=1)
    assert x.to(memory_format=ag.contiguous_format) is x
    assert not x.is_contiguous(memory_format=ag.channels_last)


def test_channels_last_result_is_row_major_and_in_the_graph():
    x = ag.randn(2, 3, 4, 5, dtype=ag.float64, requires_grad=True)
    y = x.contiguous(memory_format=ag.channels_last)
    assert y is x and y.stride() == (60, 20, 5, 1)
    z = x.clone(memory_format=ag.channels_last)
    assert z.grad_fn.name() == "CloneBackward0" and z.is_contiguous()
    assert not z.is_contiguous(memory_format=ag.channels_last)
    z.sum().backward()
    assert x.grad.tolist() == ag.ones(2, 3, 4, 5).tolist()


@needs_torch
@pytest.mark.parametrize("factory", [
    lambda lib, **kw: lib.zeros(2, **kw), lambda lib, **kw: lib.ones(2, **kw),
    lambda lib, **kw: lib.empty(2, **kw), lambda lib, **kw: lib.full((2,), 1.0, **kw),
    lambda lib, **kw: lib.arange(3, **kw), lambda lib, **kw: lib.linspace(0, 1, 3, **kw),
    lambda lib, **kw: lib.logspace(0, 1, 3, **kw), lambda lib, **kw: lib.eye(2, **kw),
    lambda lib, **kw: lib.rand(2, **kw), lambda lib, **kw: lib.randn(2, **kw),
    lambda lib, **kw: lib.randint(3, (2,), **kw), lambda lib, **kw: lib.randperm(3, **kw),
    lambda lib, **kw: lib.zeros_like(lib.ones(2), **kw),
    lambda lib, **kw: lib.ones_like(lib.ones(2), **kw),
    lambda lib, **kw: lib.empty_like(lib.ones(2), **kw),
    lambda lib, **kw: lib.rand_like(lib.ones(2), **kw),
    lambda lib, **kw: lib.ones(2).new_zeros(2, **kw),
    lambda lib, **kw: lib.empty_strided((2,), (1,), **kw),
    lambda lib, **kw: lib.scalar_tensor(1.0, **kw),
])
def test_layout_keyword_on_factories(factory):
    assert factory(ag, layout=ag.strided).layout is ag.strided
    assert factory(ag, layout=None).layout is ag.strided
    assert factory(torch, layout=torch.strided).layout is torch.strided
    with pytest.raises(TypeError, match="must be torch.layout, not str"):
        factory(ag, layout="strided")
    for name in LAYOUTS[1:]:
        if name == "sparse_coo":  # some factories make sparse COO tensors: the test below
            continue
        with pytest.raises(NotImplementedError, match="is not supported"):
            factory(ag, layout=getattr(ag, name))
    _sparse_coo_as_torch(factory)


def _sparse_coo_as_torch(factory):
    """``layout=sparse_coo``: a sparse tensor where PyTorch makes one (``zeros``, ``empty``,
    ``zeros_like``, ``new_zeros``), PyTorch's refusal elsewhere (NotImplementedError here,
    also where PyTorch raises RuntimeError or ignores the layout, as ``scalar_tensor``)."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = factory(torch, layout=torch.sparse_coo)
    except (RuntimeError, NotImplementedError):
        theirs = None
    if theirs is not None and theirs.layout is torch.sparse_coo:
        ours = factory(ag, layout=ag.sparse_coo)
        assert ours.layout is ag.sparse_coo and ours._nnz() == 0
        assert tuple(ours.shape) == tuple(theirs.shape)
    else:
        with pytest.raises(NotImplementedError, match="is not supported"):
            factory(ag, layout=ag.sparse_coo)
