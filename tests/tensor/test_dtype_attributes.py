"""``dtype``'s attributes beyond its name: ``is_signed``, ``is_complex``, ``abbr``, ``to_real``,
``itemsize``, against PyTorch where installed and PyTorch's documented values otherwise."""

from __future__ import annotations

import pytest

import arraygrad as ag

EXPECTED = {  # PyTorch 2.13's values: (abbr, is_signed, itemsize)
    "float16": ("f16", True, 2), "float32": ("f32", True, 4), "float64": ("f64", True, 8),
    "int32": ("i32", True, 4), "int64": ("i64", True, 8), "bool": ("b8", False, 1),
    "complex64": ("c64", True, 8), "complex128": ("c128", True, 16),
}
REAL_OF = {"complex64": "float32", "complex128": "float64"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_dtype_attributes(name: str) -> None:
    d = getattr(ag, name)
    abbr, signed, size = EXPECTED[name]
    assert (d.abbr, d.is_signed, d.itemsize) == (abbr, signed, size)
    assert d.is_complex is (name in REAL_OF)
    assert d.to_real() is getattr(ag, REAL_OF.get(name, name))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_dtype_attributes_match_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    ours, theirs = getattr(ag, name), getattr(torch, name)
    for attr in ("abbr", "is_signed", "is_complex", "is_floating_point", "itemsize"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.to_real().name == str(theirs.to_real()).split(".")[-1]


def test_to_complex_as_pytorch() -> None:
    assert ag.float32.to_complex() is ag.complex64 and ag.float64.to_complex() is ag.complex128
    assert ag.bfloat16.to_complex() is ag.complex64 and ag.cdouble.to_complex() is ag.complex128
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Int"):
        ag.int32.to_complex()
    with pytest.raises(RuntimeError, match="complex32"):  # PyTorch's answer, which we lack
        ag.float16.to_complex()


@pytest.mark.parametrize("name", ["float32", "float64", "bfloat16", "complex64", "complex128",
                                  "int32", "bool"])
def test_to_complex_matches_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    try:
        theirs = str(getattr(torch, name).to_complex()).split(".")[-1]
    except RuntimeError as e:
        theirs = str(e)
    try:
        ours = getattr(ag, name).to_complex().name
    except RuntimeError as e:
        ours = str(e)
    assert ours == theirs
