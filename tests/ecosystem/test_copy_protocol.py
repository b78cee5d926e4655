"""``copy.copy`` and ``copy.deepcopy`` of tensors as PyTorch's: a shallow copy is a new leaf
sharing the memory (matplotlib copies what it plots this way, and raised before), a deep copy
owns new memory; both carry ``requires_grad``, the class and the user's attributes. Pickling
stays refused (loading never runs code: ``arraygrad.save``)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")


def _leaf_with_everything(lib):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    x.tag = "bar"
    x.history = [1]
    x.register_hook(lambda g: g * 10)
    return x


def _facts(lib, x, c):
    """What a copy ``c`` of ``x`` is, in the terms both libraries answer."""
    with lib.no_grad():
        c.add_(1)
    return {"values": c.detach().tolist(), "x after": x.detach().tolist(),
            "requires_grad": c.requires_grad, "is_leaf": c.is_leaf, "grad": c.grad,
            "tag": getattr(c, "tag", None), "history shared": getattr(c, "history", None) is
            getattr(x, "history", None), "x version": x._version, "type": type(c).__name__}


@needs_torch
@pytest.mark.filterwarnings("ignore:backward hook")  # PyTorch's: hooks are not copied
@pytest.mark.parametrize("how", ["copy", "deepcopy"])
def test_copies_of_a_leaf_as_pytorch(how):
    make = getattr(copy, how)
    theirs = _leaf_with_everything(torch)
    ours = _leaf_with_everything(ag)
    got, want = _facts(ag, ours, make(ours)), _facts(torch, theirs, make(theirs))
    if how == "deepcopy":  # the grad is copied (a tensor: compared by value)
        got["grad"], want["grad"] = got["grad"].tolist(), want["grad"].tolist()
    assert got == want


@needs_torch
def test_shallow_copy_of_a_non_leaf_is_a_leaf_requiring_grad():
    for lib in (torch, ag):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        c = copy.copy(y)
        assert c.grad_fn is None and c.is_leaf and c.requires_grad
        assert c.data_ptr() == y.data_ptr()
        with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
            copy.deepcopy(y)


@needs_torch
def test_shallow_copy_of_a_view_keeps_its_layout():
    for lib in (torch, ag):
        v = lib.arange(6.0).view(2, 3)[:, 1:]
        c = copy.copy(v)
        assert (c.tolist(), c.stride(), c.storage_offset()) == ([[1.0, 2.0], [4.0, 5.0]], (3, 1), 1)
        assert c.data_ptr() == v.data_ptr() and c._base is None


def test_parameters_and_buffers_keep_their_class():
    p = nn.Parameter(ag.ones(2))
    c = copy.copy(p)
    assert type(c) is nn.Parameter and c.requires_grad and c.data_ptr() == p.data_ptr()
    frozen = nn.Parameter(ag.ones(2), requires_grad=False)
    assert not copy.copy(frozen).requires_grad
    d = copy.deepcopy(p)
    assert type(d) is nn.Parameter and d.data_ptr() != p.data_ptr()
    b = nn.Buffer(ag.zeros(2))
    assert isinstance(copy.copy(b), nn.Buffer) and isinstance(copy.deepcopy(b), nn.Buffer)
    lazy = nn.UninitializedParameter()
    assert isinstance(copy.copy(lazy), nn.UninitializedParameter)


def test_subclasses_keep_their_class():
    class Tagged(ag.Tensor):
        pass

    t = ag.ones(2).as_subclass(Tagged)
    assert type(copy.copy(t)) is Tagged and type(copy.deepcopy(t)) is Tagged


def test_deepcopy_memo_keeps_sharing_inside_a_container():
    w = ag.ones(3, requires_grad=True)
    w.meta = {"owner": w}  # an attribute pointing back at the tensor itself
    pair = copy.deepcopy([w, w])
    assert pair[0] is pair[1] and pair[0] is not w and pair[0].meta["owner"] is pair[0]


def test_shallow_copy_is_independent_of_the_graph_and_version():
    x = ag.tensor([1.0, 2.0], requires_grad=True)
    c = copy.copy(x)
    (c * c).sum().backward()
    assert x.grad is None and c.grad.tolist() == [2.0, 4.0]
    with ag.no_grad():
        c.mul_(2)
    assert x._version == 0 and x.tolist() == [2.0, 4.0]  # same memory, own version counter


def test_modules_copy_shallowly_and_deeply():
    model = nn.Linear(3, 2)
    shallow = copy.copy(model)
    assert shallow.weight is model.weight
    deep = copy.deepcopy(model)
    assert deep.weight is not model.weight and isinstance(deep.weight, nn.Parameter)
    np.testing.assert_array_equal(deep.weight.detach().numpy(), model.weight.detach().numpy())


def test_pickling_stays_refused():
    with pytest.raises(TypeError, match="not picklable; use arraygrad.save"):
        pickle.dumps(ag.ones(2))
