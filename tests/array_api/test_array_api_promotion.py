"""The namespace's type promotion is the standard's (array_api_strict is the reference):
every pair of dtypes, ``can_cast``, and Python scalars; unsigned with signed integers of 16
bits and more promote as the standard says (PyTorch, and ``arraygrad.result_type``, refuse)."""

from __future__ import annotations

import itertools

import pytest

import arraygrad as ag
from arraygrad import array_api as xp

strict = pytest.importorskip("array_api_strict")

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float32", "float64", "complex64", "complex128"]


def _outcome(ns, a: str, b: str):
    try:
        return str(ns.result_type(getattr(ns, a), getattr(ns, b))).split(".")[-1].split("'")[0]
    except TypeError:
        return TypeError


def _refused(a: str, b: str) -> bool:
    signed = {"int8", "int16", "int32", "int64"}
    return (a == "bool") != (b == "bool") or {a, b} & {"uint64"} and bool({a, b} & signed)


@pytest.mark.parametrize("a, b", list(itertools.product(NAMES, NAMES)))
def test_result_type_matches_the_standard(a: str, b: str) -> None:
    expected = _outcome(strict, a, b)
    if expected is TypeError:
        # mixed kinds are the library's choice; bool with numbers and uint64 with signed
        # integers are refused by both
        if _refused(a, b):
            assert _outcome(xp, a, b) is TypeError
        return
    assert _outcome(xp, a, b) == expected
    assert xp.can_cast(getattr(xp, a), getattr(xp, b)) == strict.can_cast(
        getattr(strict, a), getattr(strict, b))


def test_unsigned_with_signed_operands_promote_in_functions() -> None:
    a = ag.tensor([1, 2], dtype=ag.uint16)
    b = ag.tensor([-3, 4], dtype=ag.int16)
    out = xp.add(a, b)
    assert out.dtype == ag.int32 and out.tolist() == [-2, 6]
    assert xp.multiply(ag.tensor([200], dtype=ag.uint8), ag.tensor([2], dtype=ag.int8)).dtype \
        == ag.int16


def test_python_scalars_take_the_array_dtype() -> None:
    x = ag.tensor([1, 2], dtype=ag.int8)
    assert xp.add(x, 3).dtype == ag.int8
    assert xp.add(2.5, ag.ones(2, dtype=ag.float64)).dtype == ag.float64
    assert xp.result_type(x, 1) == ag.int8
    assert xp.result_type(ag.float32, 1j) == ag.complex64
    assert xp.atan2(ag.ones(2, dtype=ag.float64), 1.0).dtype == ag.float64
