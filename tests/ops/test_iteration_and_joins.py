"""Iterating a tensor is PyTorch's ``unbind(0)`` (one multi-output node, views of it), and
``cat``/``stack`` of one dtype join the arrays as they are, promoting only mixed dtypes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag


def test_the_parts_of_an_iteration_are_unbinds_views():
    x = ag.randn(3, 2, requires_grad=True)
    rows = list(x)
    assert [type(r.grad_fn).__name__ for r in rows] == ["UnbindBackward0"] * 3
    assert len({id(r.grad_fn) for r in rows}) == 1  # one node
    assert all(r._base is x for r in rows)
    sum(r.sum() * (i + 1) for i, r in enumerate(rows)).backward()
    assert x.grad.tolist() == [[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]


def test_an_iterated_part_refuses_an_inplace_write_while_recording_as_pytorch():
    y = ag.randn(3, 2, requires_grad=True) * 1
    row = next(iter(y))
    with pytest.raises(RuntimeError, match="Output 0 of UnbindBackward0 is a view"):
        row.add_(1)
    z = ag.arange(6.0).reshape(3, 2)
    for r in z:  # outside the graph a part writes into the tensor, as in PyTorch
        r.mul_(2)
    assert z.tolist() == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]


def test_iteration_matches_pytorch():
    torch = pytest.importorskip("torch")
    y = ag.randn(3, 2, requires_grad=True) * 1
    ty = torch.randn(3, 2, requires_grad=True) * 1
    assert type(next(iter(y)).grad_fn).__name__ == type(next(iter(ty)).grad_fn).__name__
    with pytest.raises(RuntimeError):
        next(iter(ty)).add_(1)
    with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
        iter(ag.tensor(1.0))


DTYPES = ["float32", "float64", "int64", "int32", "bool", "float16", "complex64"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(DTYPES), min_size=1, max_size=4), st.booleans(),
       st.integers(-2, 1))
def test_joins_promote_mixed_dtypes_and_keep_one(dtypes, use_stack, dim):
    tensors = [ag.arange(6).reshape(2, 3).to(getattr(ag, d)) for d in dtypes]
    op = ag.stack if use_stack else ag.cat
    got = op(tensors, dim=dim)
    want = tensors[0].dtype
    for t in tensors[1:]:
        want = ag.promote_types(want, t.dtype)
    assert got.dtype == want
    same = op([t.to(want) for t in tensors], dim=dim)
    assert got.shape == same.shape and got.tolist() == same.tolist()


def test_joins_match_pytorch():
    torch = pytest.importorskip("torch")
    for names in (["int64", "float32"], ["bool", "int32"], ["float16", "float64"],
                  ["float32", "float32"]):
        a = [ag.ones(2, dtype=getattr(ag, n)) for n in names]
        t = [torch.ones(2, dtype=getattr(torch, n)) for n in names]
        for op, top in ((ag.cat, torch.cat), (ag.stack, torch.stack)):
            assert str(op(a).dtype) == str(top(t).dtype).replace("torch", "arraygrad")
