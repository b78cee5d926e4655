"""``tensor(data)`` from nested Python lists: the one-pass scan of plain scalars
(``creation._plain_kind``) infers the dtype and shape the general three-pass walk infers, and
raises its errors; PyTorch's dtypes, shapes and error classes where it is installed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.creation import _plain_kind
from arraygrad.ops.rule import reference_mode

CASES = [
    [[1]] * 20, [[0.5]] * 20, [True, False], [1, 2.5], [1 + 2j, 3], [], [[], []], [[[]], [[]]],
    (1, 2), ((1, 2), [3, 4]), [[True, 1]], [[1], [2.0]], [[[1, 2]], [[3, 4]]], 3, 2.5, True,
    1j, [[False]], [[0.5] * 7] * 3,
    # not plain: the general walk answers (tensors, NumPy scalars, subclasses)
    [np.float32(1)], [ag.tensor(1.0), 2], [[ag.tensor([1, 2])], [ag.tensor([3, 4])]],
    # errors: ragged at any level, a scalar beside a list, a string
    [[], [1]], (1, (2,)), [[1, 2], [3]], [[[1, 2]], [[3]]], [1, [2]], ["a"], [[1], "ab"],
    [[1], 2], [[[1]], [2]], [[1, 2], [3, [4]]], [None], None, [[1], []],
]


# docs/differences.md: "tensor() from nested lists"
KNOWN_DIFFERENCES = {
    "[[], [1]]": "PyTorch reads the shape (2, 0) from the empty first row and checks no further",
    "['a']": "a string: PyTorch's ValueError 'too many dimensions', TypeError here",
}


def _made(data, fast):
    with reference_mode(not fast):
        try:
            t = ag.tensor(data)
        except Exception as exc:  # noqa: BLE001 - the class and words are compared
            return type(exc), str(exc)
    return t.dtype, tuple(t.shape), t.tolist()


@pytest.mark.parametrize("data", CASES, ids=[repr(c)[:30] for c in CASES])
def test_one_pass_scan_matches_the_general_walk(data):
    assert _made(data, True) == _made(data, False)


def test_scan_declines_what_is_not_plain():
    class Count(int):
        pass

    assert _plain_kind([np.float32(1)]) is None
    assert _plain_kind([ag.tensor(1.0)]) is None
    assert _plain_kind([Count(1)]) is None  # a subclass: the general walk decides
    with pytest.raises(TypeError, match="'list' object cannot be interpreted"):
        _plain_kind([1, [2]])  # a list where the first item says scalar: PyTorch's error
    assert _plain_kind([[1, 2], [3, 4]]) == (1, (2, 2))
    assert _plain_kind([[], []]) == (-1, (2, 0))
    assert _plain_kind(True) == (0, ())


_scalars = st.one_of(st.booleans(), st.integers(-2**40, 2**40),
                     st.floats(allow_nan=False, width=32), st.complex_numbers(max_magnitude=1e6))


@settings(max_examples=150, deadline=None)
@given(st.recursive(st.lists(_scalars, max_size=4),
                    lambda inner: st.lists(inner, max_size=3), max_leaves=12))
def test_random_nesting_matches_the_general_walk(data):
    assert _made(data, True) == _made(data, False)


def _holds_tensor(data):
    if isinstance(data, ag.Tensor):
        return True
    return isinstance(data, (list, tuple)) and any(_holds_tensor(x) for x in data)


@pytest.mark.parametrize("data", CASES, ids=[repr(c)[:30] for c in CASES])
def test_against_pytorch(data):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if _holds_tensor(data):
        pytest.skip("holds arraygrad tensors: PyTorch's own tensors are another case")
    if repr(data) in KNOWN_DIFFERENCES:
        pytest.skip(KNOWN_DIFFERENCES[repr(data)])
    try:
        expected = torch.tensor(data)
    except Exception as exc:  # noqa: BLE001 - the class is compared
        assert _made(data, True) == (type(exc), str(exc))
        return
    made = _made(data, True)
    assert str(made[0]).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert made[1] == tuple(expected.shape)
