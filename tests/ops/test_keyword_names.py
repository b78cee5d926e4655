"""PyTorch's keyword names for the shape and dtype functions (``reshape(shape=)``,
``view(size=)``/``view(dtype=)``, ``permute(dims=)``, ``expand(size=)``, ``repeat(repeats=)``,
``broadcast_to(size=)``, ``tile(dims=)``, the split overloads' ``sections=``/``indices=``,
``split(tensor=)``/``split(split_size=)``, ``clone(input=)``, ``dot(tensor=)``,
``promote_types(type1=)``, ``result_type(scalar=)``): the same results as positionally, and
a TypeError when a value comes both ways."""

from __future__ import annotations

import pytest

import arraygrad as ag


def _shapes(parts):
    return [tuple(p.shape) for p in parts]


@pytest.mark.parametrize("keyword,positional", [
    (lambda x: x.reshape(shape=(3, 4)), lambda x: x.reshape(3, 4)),
    (lambda x: ag.reshape(x, shape=(4, 3)), lambda x: ag.reshape(x, (4, 3))),
    (lambda x: x.view(size=(2, 6)), lambda x: x.view(2, 6)),
    (lambda x: x.view(2, 6).permute(dims=(1, 0)), lambda x: x.view(2, 6).permute(1, 0)),
    (lambda x: ag.permute(x.view(2, 6), dims=(1, 0)), lambda x: ag.permute(x.view(2, 6), (1, 0))),
    (lambda x: x[:1].expand(size=(3, 12)), lambda x: x[:1].expand(3, 12)),
    (lambda x: ag.broadcast_to(x[0], size=(2, 12)), lambda x: ag.broadcast_to(x[0], (2, 12))),
    (lambda x: x.broadcast_to(size=(2, 12)), lambda x: x.broadcast_to((2, 12))),
    (lambda x: x.repeat(repeats=(2, 1)), lambda x: x.repeat(2, 1)),
    (lambda x: x.tile(dims=(2,)), lambda x: x.tile(2)),
    (lambda x: ag.tile(x, dims=(1, 2)), lambda x: ag.tile(x, (1, 2))),
    (lambda x: ag.clone(input=x), lambda x: ag.clone(x)),
])
def test_keyword_forms_give_the_positional_results(keyword, positional):
    x = ag.arange(12.).reshape(1, 12)
    assert keyword(x).tolist() == positional(x).tolist()


@pytest.mark.parametrize("keyword,positional", [
    (lambda x: ag.tensor_split(x, sections=3), lambda x: ag.tensor_split(x, 3)),
    (lambda x: x.tensor_split(indices=[1, 4]), lambda x: x.tensor_split([1, 4])),
    (lambda x: ag.tensor_split(x, tensor_indices_or_sections=ag.tensor([2])),
     lambda x: ag.tensor_split(x, ag.tensor([2]))),
    (lambda x: ag.hsplit(x.reshape(2, 3), sections=3), lambda x: ag.hsplit(x.reshape(2, 3), 3)),
    (lambda x: x.reshape(2, 3).vsplit(indices=[1]), lambda x: x.reshape(2, 3).vsplit([1])),
    (lambda x: ag.dsplit(x.reshape(1, 1, 6), sections=2), lambda x: ag.dsplit(x.reshape(1, 1, 6), 2)),
    (lambda x: ag.split(tensor=x, split_size_or_sections=4), lambda x: ag.split(x, 4)),
    (lambda x: x.split(split_size=[1, 5]), lambda x: x.split([1, 5])),
])
def test_split_keyword_forms(keyword, positional):
    x = ag.arange(6.)
    ours, expected = keyword(x), positional(x)
    assert _shapes(ours) == _shapes(expected)
    assert [p.tolist() for p in ours] == [p.tolist() for p in expected]


def test_dtype_keywords():
    assert ag.promote_types(type1=ag.int32, type2=ag.float16) is ag.float16
    assert ag.result_type(scalar=2.0, tensor=ag.ones(2, dtype=ag.int32)) is ag.float32
    assert ag.result_type(scalar1=1, scalar2=True) is ag.int64
    assert ag.result_type(tensor=ag.ones(2, dtype=ag.int32), other=3) is ag.int32
    assert ag.dot(ag.ones(3), tensor=ag.ones(3)).item() == 3.0
    x = ag.tensor([1.0])
    assert x.view(dtype=ag.int32).item() == 1065353216


@pytest.mark.parametrize("call", [
    lambda x: x.reshape(2, 3, shape=(3, 2)),
    lambda x: x.view(6, size=(6,)),
    lambda x: x.view(6, dtype=ag.int32),
    lambda x: x.permute(0, dims=(0,)),
    lambda x: x.tile(2, dims=(2,)),
    lambda x: ag.tensor_split(x, 2, sections=2),
    lambda x: ag.split(x, 2, tensor=x),
    lambda x: ag.dot(x, x, tensor=x),
])
def test_a_value_given_twice_is_a_type_error(call):
    with pytest.raises(TypeError):
        call(ag.arange(6.))
