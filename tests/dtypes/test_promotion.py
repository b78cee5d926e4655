"""PyTorch's type promotion over every pair of arraygrad's dtypes: ``promote_types`` and
``result_type`` with dimensioned tensors, 0-dim tensors and Python scalars, against
``torch.promote_types``/``torch.result_type`` (the table's shape is checked without PyTorch)."""

import itertools

import pytest

import arraygrad as ag
from arraygrad import dtypes as D

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
PAIRS = list(itertools.product(D.ALL_DTYPES, repeat=2))


def _theirs(fn, *args):
    try:
        found = str(fn(*args)).replace("torch.", "")
    except RuntimeError as e:
        return f"RuntimeError: {e}"
    # a float16 beside a complex 0-dim tensor or number: PyTorch's complex32, which arraygrad
    # lacks, is complex64 here (docs/differences.md)
    return "complex64" if found == "complex32" else found


def _ours(fn, *args):
    try:
        return fn(*args).name
    except RuntimeError as e:
        return f"RuntimeError: {e}"


@needs_torch
def test_promote_types_equals_pytorch_for_every_pair():
    bad = [(a.name, b.name, _theirs(torch.promote_types, getattr(torch, a.name), getattr(torch, b.name)),
            _ours(ag.promote_types, a, b)) for a, b in PAIRS
           if _theirs(torch.promote_types, getattr(torch, a.name), getattr(torch, b.name))
           != _ours(ag.promote_types, a, b)]
    assert not bad, bad[:10]


def _operand(lib, kind, d):
    """A dimensioned tensor, a 0-dim tensor or a Python scalar of dtype ``d``'s category."""
    dt = getattr(lib, d.name)
    if kind == "dim":
        return lib.zeros(2, dtype=dt)
    if kind == "zero":
        return lib.zeros((), dtype=dt)
    if d.is_complex:
        return 1.5 - 2j
    return {True: 1.5, False: (True if d is D.bool else 3)}[d.is_floating_point]


@needs_torch
@pytest.mark.parametrize("kinds", [("dim", "dim"), ("dim", "zero"), ("zero", "dim"),
                                   ("zero", "zero"), ("dim", "scalar"), ("zero", "scalar"),
                                   ("scalar", "dim")])
def test_result_type_equals_pytorch_with_0dim_tensors_and_scalars(kinds):
    bad = []
    for a, b in PAIRS:
        if kinds[0] == "scalar" and kinds[1] == "scalar":
            continue
        ta, tb = _operand(torch, kinds[0], a), _operand(torch, kinds[1], b)
        oa, ob = _operand(ag, kinds[0], a), _operand(ag, kinds[1], b)
        theirs = _theirs(torch.result_type, ta, tb)
        ours = _ours(ag.result_type, oa, ob)
        if theirs != ours:
            bad.append((kinds, a.name, b.name, theirs, ours))
    assert not bad, bad[:10]


@needs_torch
def test_arithmetic_result_dtypes_follow_the_table():
    """``a + b`` of every pair has promote_types' dtype (or raises the same class)."""
    for a, b in PAIRS:
        if D.bool in (a, b) and a is b:
            continue
        ta = torch.ones(2, dtype=getattr(torch, a.name))
        tb = torch.ones(2, dtype=getattr(torch, b.name))
        expected = _theirs(torch.promote_types, ta.dtype, tb.dtype)
        got = _ours(lambda x, y: (x * y).dtype, ag.ones(2, dtype=a), ag.ones(2, dtype=b))
        assert got == expected or expected.startswith("RuntimeError") and got.startswith(
            "RuntimeError"), (a, b, expected, got)


def test_table_shape_without_pytorch():
    P = ag.promote_types
    assert P(ag.uint8, ag.int8) is ag.int16
    assert P(ag.uint8, ag.int16) is ag.int16 and P(ag.int8, ag.int32) is ag.int32
    assert P(ag.bool, ag.uint8) is ag.uint8
    assert P(ag.bfloat16, ag.float16) is ag.float32
    assert P(ag.bfloat16, ag.float32) is ag.float32 and P(ag.bfloat16, ag.int64) is ag.bfloat16
    assert P(ag.uint64, ag.float16) is ag.float16
    with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not "
                                           "supported, attempted to promote UInt64 and Long"):
        P(ag.uint64, ag.int64)
    assert ag.result_type(ag.zeros(2, dtype=ag.uint8), -1) is ag.uint8
    assert ag.result_type(ag.zeros(2, dtype=ag.uint8), 1.5) is ag.float32
    assert ag.result_type(ag.zeros(2, dtype=ag.bfloat16), 1.5) is ag.bfloat16
    assert ag.result_type(ag.zeros(2, dtype=ag.uint8), ag.zeros((), dtype=ag.int8)) is ag.uint8


def test_dtype_attributes():
    for d in D.ALL_DTYPES:
        assert ag.iinfo(d).bits == 8 * d.itemsize if d.category == 1 else True
    assert not ag.uint8.is_signed and ag.int8.is_signed and ag.bfloat16.is_signed
    assert not ag.bool.is_signed and ag.bfloat16.is_floating_point
    assert (ag.short, ag.half) == (ag.int16, ag.float16)
    assert repr(ag.uint16) == "arraygrad.uint16" and ag.bfloat16.itemsize == 2
    assert [d.abbr for d in (ag.uint8, ag.int8, ag.bfloat16)] == ["u8", "i8", "bf16"]


@needs_torch
@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64", "uint16",
                                  "uint32", "uint64"])
def test_iinfo_equals_pytorch(name):
    a, t = ag.iinfo(getattr(ag, name)), torch.iinfo(getattr(torch, name))
    assert (a.bits, a.min, a.max, a.dtype) == (t.bits, t.min, t.max, t.dtype)
    assert repr(a) == repr(t)


@needs_torch
@pytest.mark.parametrize("name", ["float16", "bfloat16", "float32", "float64"])
def test_finfo_equals_pytorch(name):
    a, t = ag.finfo(getattr(ag, name)), torch.finfo(getattr(torch, name))
    for k in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(a, k) == getattr(t, k), k
    assert repr(a) == repr(t)


def test_complex_promotion_without_pytorch():
    P = ag.promote_types
    assert P(ag.complex64, ag.float64) is ag.complex128 and P(ag.float16, ag.complex64) is ag.complex64
    assert P(ag.complex64, ag.int64) is ag.complex64 and P(ag.bool, ag.complex128) is ag.complex128
    with pytest.raises(RuntimeError, match="Promotion for uint16"):
        P(ag.uint16, ag.complex64)
    f64, f32, i32 = (ag.zeros(2, dtype=d) for d in (ag.float64, ag.float32, ag.int32))
    assert ag.result_type(f64, 1j) is ag.complex128  # the float tier keeps its precision
    assert ag.result_type(f32, 1j) is ag.complex64 and ag.result_type(i32, 1j) is ag.complex64
    assert ag.result_type(f32, ag.zeros((), dtype=ag.complex128)) is ag.complex64
    assert ag.result_type(ag.zeros(2, dtype=ag.complex64), 2.5) is ag.complex64
    assert ag.result_type(ag.zeros(2, dtype=ag.float16), 1j) is ag.complex64  # PyTorch: complex32
    assert (f64 * 1j).dtype is ag.complex128 and (i32 * 1j).dtype is ag.complex64


@pytest.mark.parametrize("default", [ag.float32, ag.float64])
def test_the_default_complex_dtype_follows_the_default_float(default):
    ag.set_default_dtype(default)
    try:
        expected = ag.complex128 if default is ag.float64 else ag.complex64
        assert ag.tensor([1 + 2j]).dtype is expected and ag.tensor(1j).dtype is expected
        assert ag.tensor([1, 2.5, 1j]).dtype is expected and ag.full((2,), 1j).dtype is expected
        assert (ag.ones(2, dtype=ag.int64) * 1j).dtype is expected
        assert "dtype" not in repr(ag.tensor([1j]))  # the default complex dtype is not printed
    finally:
        ag.set_default_dtype(ag.float32)
