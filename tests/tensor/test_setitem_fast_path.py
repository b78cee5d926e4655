"""``t[key] = value`` on the fast path (``ops.fast_setitem``: one write into the array when
nothing is recorded) is the general mechanism's: the same values in every dtype, views and
bases seeing the write, one version bump (so a saved tensor's change is caught), nothing
changed on error and the same error; PyTorch's values where it is installed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import arraygrad as ag
from arraygrad.ops import fast_setitem
from arraygrad.ops.rule import reference_mode

DTYPES = ["int64", "int8", "uint8", "bool", "float32", "float64", "float16", "bfloat16",
          "complex64"]
VALUES = [0, 1, -1, 7, True, False, 2.5, -0.0, float("inf"), float("nan"), 300, 10**30,
          -2**70, 2**63 - 1, 2**63]
KEYS = [2, -1, slice(None, 4), slice(1, None, 2), (slice(None), 1), (1, slice(0, 2)),
        (slice(None, None, 3), slice(1, 3))]


def _write(dtype, key, value, fast):
    t = ag.arange(12).reshape(3, 4).to(getattr(ag, dtype))
    version = t._version
    try:
        with reference_mode(not fast):
            t[key] = value
    except Exception as exc:  # noqa: BLE001 - the class is compared
        return type(exc), t, t._version - version
    return None, t, t._version - version


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalars_write_what_the_general_path_writes(dtype):
    for key in KEYS:
        for value in VALUES:
            err_fast, fast, bumped = _write(dtype, key, value, True)
            err_ref, ref, _ = _write(dtype, key, value, False)
            assert err_fast is err_ref, (dtype, key, value)
            got = fast.to(ag.float64) if dtype == "bfloat16" else fast
            want = ref.to(ag.float64) if dtype == "bfloat16" else ref
            assert np.array_equal(got.numpy(), want.numpy(), equal_nan=True), (dtype, key, value)
            assert bumped == (0 if err_fast else 1)


@reference_mode(False)  # the fast path on in the reference run too: it is what is tested
def test_the_fast_path_takes_the_common_writes_and_declines_the_recorded_ones():
    y = ag.arange(9)
    assert fast_setitem.setitem(y, slice(None, 4), -1)
    assert y.tolist() == [-1, -1, -1, -1, 4, 5, 6, 7, 8]
    w = ag.zeros(3, requires_grad=True)
    assert not fast_setitem.setitem(w, 0, 1.0)  # a leaf that requires grad: recorded (refused)
    with ag.no_grad():
        w[0] = 1.0  # the initialisation idiom: written, nothing recorded
    assert w.tolist() == [1.0, 0.0, 0.0] and w.grad_fn is None and w.is_leaf
    x = ag.zeros(3)
    assert not fast_setitem.setitem(x, 0, ag.ones((), requires_grad=True))  # recorded
    assert not fast_setitem.setitem(x, ag.tensor([0, 2]), 1.0)  # advanced key
    with reference_mode():
        assert not fast_setitem.setitem(x, 0, 1.0)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["int64", "float32", "float64", "bool"]),
       st.one_of(st.integers(-3, 3), st.floats(-4, 4, width=32), st.booleans()),
       st.integers(0, 2**16))
def test_a_bool_mask_write_is_the_general_paths_and_pytorchs(dtype, value, seed):
    mask = np.random.default_rng(seed).random((3, 4)) < 0.5
    results = []
    for fast in (True, False):
        t = ag.arange(12).reshape(3, 4).to(getattr(ag, dtype))
        with reference_mode(not fast):
            try:
                t[ag.tensor(mask)] = value
                results.append((None, t.numpy()))
            except Exception as exc:  # noqa: BLE001 - the class is compared
                results.append((type(exc), t.numpy()))
    assert results[0][0] is results[1][0]
    assert np.array_equal(results[0][1], results[1][1])
    torch = pytest.importorskip("torch")
    t = torch.arange(12).reshape(3, 4).to(getattr(torch, dtype))
    t[torch.tensor(mask)] = value
    assert np.array_equal(results[0][1], t.numpy())


@reference_mode(False)
def test_a_bool_mask_takes_the_fast_path_only_at_the_tensors_shape():
    x = ag.arange(6.0).reshape(2, 3)
    assert fast_setitem.setitem(x, x > 3, 0.0)
    assert x.tolist() == [[0, 1, 2], [3, 0, 0]]
    assert not fast_setitem.setitem(x, ag.tensor([True, False]), 1.0)  # rows: general path
    x[ag.tensor([True, False])] = 1.0
    assert x.tolist() == [[1, 1, 1], [3, 0, 0]]
    x[x > 0.5] = ag.tensor([7.0])  # one value broadcast to the four hits
    assert x.tolist() == [[7, 7, 7], [7, 0, 0]] and x._version == 3


def test_a_view_and_its_base_see_the_write():
    base = ag.zeros(4, 5)
    view = base[1:3, ::2]
    view[0] = 7.0
    view[1, 1:] = ag.tensor([8.0, 9.0])
    assert base[1].tolist() == [7.0, 0.0, 7.0, 0.0, 7.0]
    assert base[2].tolist() == [0.0, 0.0, 8.0, 0.0, 9.0]
    assert base._version == view._version == 2


def test_a_saved_tensor_written_afterwards_is_caught_in_backward():
    w = ag.ones(3, requires_grad=True)
    c = ag.tensor([1.0, 2.0, 3.0])
    y = (w * c).sum()  # saves c for w's gradient
    c[0] = 5.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_errors_leave_the_tensor_as_it_was():
    t = ag.arange(6).reshape(2, 3)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        t[0] = ag.tensor([1, 2])
    with pytest.raises(IndexError):
        t[5] = 1
    e = ag.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="single memory location"):
        e[0] = 1.0
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]] and t._version == 0
    with ag.inference_mode():
        frozen = ag.zeros(2)
    with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
        frozen[0] = 1.0
    assert frozen.tolist() == [0.0, 0.0]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["int64", "float32", "bool"]), st.sampled_from(KEYS),
       st.one_of(st.integers(-5, 5), st.floats(-4, 4, width=32), st.booleans()))
def test_any_common_write_matches_pytorch(dtype, key, value):
    torch = pytest.importorskip("torch")
    err, got, _ = _write(dtype, key, value, True)
    t = torch.arange(12).reshape(3, 4).to(getattr(torch, dtype))
    try:
        t[key] = value
        want_err = None
    except Exception as exc:  # noqa: BLE001
        want_err = type(exc)
    assert err is want_err
    assert np.array_equal(got.numpy(), t.numpy())


@pytest.mark.parametrize("fast", [True, False])
def test_zero_fill_and_copy_are_the_general_paths(fast):
    with reference_mode(not fast):
        t = ag.arange(6.0).reshape(2, 3)
        assert t.zero_() is t and t.tolist() == [[0.0] * 3] * 2 and t._version == 1
        t.fill_(2.5)
        t[0].fill_(ag.tensor(-1.0))  # a view's fill reaches its base
        assert t.tolist() == [[-1.0] * 3, [2.5] * 3] and t._version == 3
        t.copy_(ag.tensor([1.0, 2.0, 3.0]))  # broadcast
        assert t.tolist() == [[1.0, 2.0, 3.0]] * 2
        t.copy_(ag.tensor([[7, 8, 9]]))  # another dtype: cast
        assert t.tolist() == [[7.0, 8.0, 9.0]] * 2 and t.dtype is ag.float32
        with pytest.raises(RuntimeError):
            t.fill_(ag.ones(3))  # fill_ takes a 0-d value only
        with pytest.raises(RuntimeError):
            t.copy_(ag.ones(4))
        assert t.tolist() == [[7.0, 8.0, 9.0]] * 2 and t._version == 5
        w = ag.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="leaf Variable"):
            w.zero_()
        with ag.no_grad():
            w.zero_()
        assert w.tolist() == [0.0, 0.0] and w.requires_grad and w.grad_fn is None


@reference_mode(False)
def test_zero_fill_and_copy_take_the_fast_path():
    t = ag.ones(3)
    write = fast_setitem.OVERWRITES
    assert write["zero_"](t, ())
    assert write["fill_"](t, (4,))
    assert write["copy_"](t, (ag.tensor([1.0, 2.0, 3.0]),))
    assert t.tolist() == [1.0, 2.0, 3.0] and t._version == 3
    assert not write["copy_"](t, (ag.tensor([1, 2, 3]),))  # a cast: the general path's
    assert not write["fill_"](t, (ag.ones(3),))  # refused by the general path
