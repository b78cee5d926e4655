"""The pytrees of ``arraygrad.func``: tuples, lists, dicts, namedtuples and None round-trip,
structures compare by shape, and the transforms keep them (namedtuple arguments, None leaves)."""

import collections

import numpy as np
import pytest
from func_helpers import arr, t64

from arraygrad.func import grad, vjp
from arraygrad._pytree import tree_flatten, tree_map, tree_unflatten

Pair = collections.namedtuple("Pair", "first second")


def test_round_trip_keeps_containers_and_order():
    tree = {"b": [1, (2, None)], "a": Pair(3, {"z": 4})}
    leaves, spec = tree_flatten(tree)
    assert leaves == [1, 2, 3, 4]
    back = tree_unflatten(leaves, spec)
    assert back == tree and isinstance(back["a"], Pair) and list(back) == ["b", "a"]
    assert tree_map(lambda v: v * 10, tree)["a"].second["z"] == 40
    assert str(spec) == "{'b': [*, (*, None)], 'a': Pair(*, {'z': *})}"


def test_specs_compare_by_structure():
    assert tree_flatten((1, [2]))[1] == tree_flatten((5, [6]))[1]
    assert tree_flatten((1, [2]))[1] != tree_flatten((1, (2,)))[1]
    assert tree_flatten({"a": 1})[1] != tree_flatten({"b": 1})[1]


def test_unflatten_with_the_wrong_number_of_leaves_raises():
    _, spec = tree_flatten((1, 2))
    with pytest.raises(ValueError, match="`leaves` has length 3"):
        tree_unflatten([1, 2, 3], spec)


def test_transforms_keep_namedtuples_and_none():
    g = grad(lambda p: (p.first * p.second[0]).sum())(Pair(t64([1.0, 2.0]), [t64([3.0, 4.0]),
                                                                             None]))
    assert isinstance(g, Pair) and g.second[1] is None
    np.testing.assert_allclose(arr(g.first), [3.0, 4.0])
    np.testing.assert_allclose(arr(g.second[0]), [1.0, 2.0])
    out, vjp_fn = vjp(lambda p: Pair(p * 2, p * 3), t64([1.0]))
    assert isinstance(out, Pair)
    (ct,) = vjp_fn(Pair(t64([1.0]), t64([1.0])))
    np.testing.assert_allclose(arr(ct), [5.0])
