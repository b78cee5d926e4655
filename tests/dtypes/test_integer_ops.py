"""The small and unsigned integer dtypes through the ops that take integers, against PyTorch:
wrap-around, division and remainders (and their ZeroDivisionError), comparisons with
out-of-range numbers, reductions' int64, casts, overflow checks of the factories, legacy
constructors, uint8 masks, host arrays keeping their dtypes."""

import warnings

import numpy as np
import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

SMALL = ["uint8", "int8", "int16"]
INTS = SMALL + ["int32", "int64"]
UNSIGNED_WIDE = ["uint16", "uint32", "uint64"]

# (expression over a, b (tensors of the dtype) and lib) -> same dtype, values or error class
EXPRESSIONS = [
    "a + b", "a - b", "a * b", "a + 300", "a - 1", "a + (-1)", "a * 3", "-a", "a * 1.5",
    "a / b", "a // b", "a % b", "lib.fmod(a, b)", "lib.remainder(a, -3)", "a // 0", "a % 0",
    "lib.fmod(a, 0)", "lib.div(a, 3, rounding_mode='trunc')", "lib.div(a, -3, rounding_mode='floor')",
    "lib.div(a, 0, rounding_mode='trunc')", "a < -1", "a == 256", "a >= 100", "a != b", "a < b",
    "lib.maximum(a, b)", "lib.minimum(a, b)", "lib.clamp(a, 10, 100)", "lib.clamp(a, -5.5, 5)",
    "lib.where(a > 100, a, 0)", "lib.where(a > 100, a, -1)", "a & b", "a | 3", "a ^ b", "~a",
    "a.abs()", "lib.sign(a)", "a ** 2", "a.square()", "a.sum()", "a.sum(0)", "a.prod()",
    "a.cumsum(0)", "a.max()", "a.min()", "a.argmax()", "a.sort().values", "a.topk(2).values",
    "a.float()", "a.double()", "a.half()", "a.long()", "a.int()", "a.short()", "a.char()",
    "a.byte()", "a.bool()", "a.to(lib.int8)", "a.to(lib.uint8)", "lib.cat([a, b])",
    "lib.stack([a, b])", "a.flip(0)", "a.unique()", "a.sqrt()", "a * 0.5", "a.sum(dtype=lib.uint8)",
    "a.mean()", "a.float().mean()", "lib.bincount(b.long().clamp(min=0))", "a.sum(dtype=lib.int8)",
    "a[1:]", "a.reshape(2, 2)", "a.t()" if False else "a.reshape(2, 2).t()", "lib.isnan(a)",
    "a.clone().add_(300)", "a.clone().mul_(2)", "a.clone().floor_divide_(2)", "a.clone().div_(2)",
    "lib.floor(a)", "lib.round(a)", "a.eq(1.0)", "a + True", "a * lib.tensor(2.5)",
    "a + lib.tensor(1000)", "a + lib.tensor([1, 2, 3, 4])", "a.new_zeros(2)", "a.new_full((2,), 7)",
]


def _values(lib, name):
    dt = getattr(lib, name)
    info = np.iinfo(name)
    a = lib.tensor([info.min if info.min else 1, 7, info.max, 100], dtype=dt)
    b = lib.tensor([3, -2 if info.min else 2, 5, 7], dtype=dt)
    return a, b


def _run(lib, name, expr):
    a, b = _values(lib, name)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = eval(expr, {"a": a, "b": b, "lib": lib})
        return ("ok", str(out.dtype).split(".")[-1], str(out.tolist()))  # (NaN == NaN)
    except Exception as e:  # the error class is part of the contract
        return ("err", type(e).__name__, None)


@needs_torch
@pytest.mark.parametrize("name", INTS)
def test_ops_on_integers_equal_pytorch(name):
    bad = []
    for expr in EXPRESSIONS:
        theirs, ours = _run(torch, name, expr), _run(ag, name, expr)
        if theirs != ours:
            bad.append((expr, theirs, ours))
    assert not bad, bad[:8]


@needs_torch
@pytest.mark.parametrize("name", UNSIGNED_WIDE)
def test_wide_unsigned_ops_agree_where_pytorch_computes(name):
    """PyTorch 2.13 implements few ops for uint16/32/64 (NotImplementedError): where it
    computes, arraygrad agrees; where it refuses, arraygrad computes (docs/differences.md)."""
    bad = []
    for expr in EXPRESSIONS:
        theirs, ours = _run(torch, name, expr), _run(ag, name, expr)
        if theirs[0] == "err" and theirs[1] == "NotImplementedError":
            continue
        if theirs != ours:
            bad.append((expr, theirs, ours))
    assert not bad, bad[:8]


@needs_torch
@pytest.mark.parametrize("name", INTS + UNSIGNED_WIDE)
@pytest.mark.parametrize("expr", [
    "lib.tensor([300], dtype=dt)", "lib.tensor([-1], dtype=dt)", "lib.tensor([-129], dtype=dt)",
    "lib.tensor([2**40], dtype=dt)", "lib.full((2,), 300, dtype=dt)", "lib.full((2,), -1, dtype=dt)",
    "lib.full((2,), -2**20, dtype=dt)", "lib.zeros(2, dtype=dt).fill_(-1)",
    "lib.zeros(2, dtype=dt).fill_(70000)", "lib.ones(3, dtype=dt)", "lib.zeros((), dtype=dt)",
    "lib.tensor([2**64 - 1], dtype=dt)", "lib.tensor(-3.7).to(dt)", "lib.tensor([300.0]).to(dt)",
    "lib.tensor([70000]).to(dt)", "lib.randint(0, 2**8, (3,), dtype=dt).dtype",
    "lib.randint(0, 2**8 + 1, (3,), dtype=dt).dtype", "lib.randint(-1, 5, (3,), dtype=dt).dtype",
    "lib.iinfo(dt).max"])
def test_factories_and_casts_equal_pytorch(name, expr):
    def run(lib):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                out = eval(expr, {"lib": lib, "dt": getattr(lib, name)})
            return ("ok", str(out).replace("torch.", "").replace("arraygrad.", "")
                    if not hasattr(out, "tolist") else (str(out.dtype).split(".")[-1], out.tolist()))
        except Exception as e:
            return ("err", type(e).__name__, str(e).replace("torch", "arraygrad"))
    theirs, ours = run(torch), run(ag)
    if theirs[0] == "err" and theirs[1] == "NotImplementedError":
        pytest.skip(f"PyTorch 2.13 does not implement this for {name}")
    assert theirs == ours


@needs_torch
@pytest.mark.parametrize("name", ["ByteTensor", "CharTensor", "ShortTensor"])
def test_legacy_constructors_and_type_names(name):
    a, t = getattr(ag, name)([1, 2, 3]), getattr(torch, name)([1, 2, 3])
    assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert a.type() == t.type().replace("torch.", "arraygrad.")
    assert isinstance(a, getattr(ag, name)) and not isinstance(a, ag.LongTensor)
    assert a.type("torch.ShortTensor").dtype is ag.int16


def test_uint8_mask_indexes_with_pytorch_warning_and_other_small_ints_refuse():
    x = ag.arange(6).reshape(2, 3)
    mask = ag.tensor([[1, 0, 1], [0, 0, 1]], dtype=ag.uint8)
    with pytest.warns(UserWarning, match="indexing with dtype arraygrad.uint8 is now deprecated"):
        assert x[mask].tolist() == [0, 2, 5]
    for d in (ag.int8, ag.int16, ag.uint16):
        with pytest.raises(IndexError, match="long, int, byte or bool"):
            x[ag.tensor([1, 0], dtype=d)]
    assert x[ag.tensor([1, 0], dtype=ag.int32)].tolist() == [[3, 4, 5], [0, 1, 2]]


@pytest.mark.parametrize("np_dtype", ["uint8", "int8", "int16", "uint16", "uint32", "uint64"])
def test_host_arrays_keep_their_dtypes(np_dtype):
    arr = np.arange(4, dtype=np_dtype)
    for make in (ag.tensor, ag.as_tensor, ag.from_numpy, ag.asarray):
        t = make(arr)
        assert t.dtype.name == np_dtype and t.tolist() == [0, 1, 2, 3]
    shared = ag.from_numpy(arr)
    arr[0] = 9
    assert shared[0].item() == 9  # from_numpy shares memory


def test_printing_and_repr():
    assert repr(ag.tensor([1, 200], dtype=ag.uint8)) == "tensor([  1, 200], dtype=arraygrad.uint8)"
    assert repr(ag.tensor([-3], dtype=ag.int16)) == "tensor([-3], dtype=arraygrad.int16)"
    assert ag.tensor([5], dtype=ag.int8).item() == 5 and not ag.tensor([5], dtype=ag.uint8).is_signed()


def test_strict_backend_has_the_standard_integers():
    for d in (ag.uint8, ag.int8, ag.int16, ag.uint16, ag.uint32, ag.uint64):
        t = ag.tensor([1, 2, 3], dtype=d, device="strict")
        assert (t * 2 + 300).dtype is d
        assert (t + 300).tolist() == ag.tensor([1, 2, 3], dtype=d).add(300).tolist()
        assert t.sum().dtype is ag.int64
