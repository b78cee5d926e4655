"""``dtype``'s attributes beyond its name: ``is_signed``, ``is_complex``, ``abbr``, ``to_real``,
``itemsize``, against PyTorch where installed and PyTorch's documented values otherwise."""

from __future__ import annotations

import pytest

import arraygrad as ag

EXPECTED = {  # PyTorch 2.13's values: (abbr, is_signed, itemsize)
    "float16": ("f16", True, 2), "float32": ("f32", True, 4), "float64": ("f64", True, 8),
    "int32": ("i32", True, 4), "int64": ("i64", True, 8), "bool": ("b8", False, 1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_dtype_attributes(name: str) -> None:
    d = getattr(ag, name)
    abbr, signed, size = EXPECTED[name]
    assert (d.abbr, d.is_signed, d.itemsize) == (abbr, signed, size)
    assert d.is_complex is False
    assert d.to_real() is d


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_dtype_attributes_match_pytorch(name: str) -> None:
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    ours, theirs = getattr(ag, name), getattr(torch, name)
    for attr in ("abbr", "is_signed", "is_complex", "is_floating_point", "itemsize"):
        assert getattr(ours, attr) == getattr(theirs, attr), attr
    assert ours.to_real().name == str(theirs.to_real()).split(".")[-1]


def test_to_complex_is_absent_with_its_reason() -> None:
    with pytest.raises(AttributeError):
        ag.float32.to_complex
