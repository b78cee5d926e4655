"""Replay units (``transform_state.array_kernel``): an array function a recording writes down
as ONE instruction calling the undecorated function, which a replay calls on the real
arrays (so it makes eager's backend calls in eager's order). What a unit cannot take (a
live scalar, a container, another recording's leftover, keywords, a result that is no
fresh array) is recorded as any function is, op by op or through the general path."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.backends.registry import default_backend
from arraygrad.compiler.recording import Slot
from arraygrad.compiler.recording_backend import RecordingBackend
from arraygrad.compiler.scalars import LiveScalar
from arraygrad.compiler.traced import TracedArray
from arraygrad.compiler.units import array_kernel, kernel_function
from arraygrad.nn._functional.linear import linear_data
from arraygrad.nn._functional.linear_backward import linear_grad_data
from arraygrad.ops.activation import _log_softmax_grad_data, log_softmax_data
from arraygrad.ops.activation_backward import threshold_grad_data
from arraygrad.ops.fast import onehot_data, scaled_inplace
from arraygrad.ops.rule import fast_paths

from .helpers import host, recording_now, recording_of, training_step

_UNITS = (linear_data, linear_grad_data, log_softmax_data, _log_softmax_grad_data,
          threshold_grad_data, onehot_data, scaled_inplace)


@array_kernel
def _scaled_sum(backend, a, b, k):
    """A unit: ``a * k + b`` (two ops when recorded op by op)."""
    out = a * k
    out += b
    return out


@array_kernel
def _pair(backend, a, need_second):
    """A unit with a tuple result, its second entry None unless asked for."""
    return backend.xp.exp(a), (backend.xp.sum(a, axis=0) if need_second else None)


@array_kernel
def _transposed(backend, a):
    """A unit answering a view of its argument."""
    return a.T


@array_kernel
def _itself(backend, a):
    """A unit answering its argument."""
    return a


def _recording(*arrays):
    rec, traced = recording_of(*arrays)
    return rec, RecordingBackend(rec.backend, rec), traced


def _arrays():
    return np.arange(6.0).reshape(2, 3) + 1.0, np.full((2, 3), 0.5)


def test_outside_a_recording_a_unit_is_its_function():
    a, b = _arrays()
    backend = default_backend()
    assert np.array_equal(_scaled_sum(backend, a, b, 2.0), a * 2.0 + b)
    assert kernel_function(_scaled_sum) is not _scaled_sum
    assert kernel_function(_scaled_sum)(backend, a, b, 2.0).tolist() == (a * 2.0 + b).tolist()
    assert kernel_function(np.exp) is np.exp  # no unit: itself
    assert _scaled_sum.__name__ == "_scaled_sum" and "a * k + b" in _scaled_sum.__doc__


def test_a_unit_call_is_one_instruction_calling_the_function_with_the_real_backend():
    a, b = _arrays()
    rec, rb, (ta, tb) = _recording(a, b)
    with recording_now(rec):
        out = _scaled_sum(rb, ta, tb, 2.0)
    assert out.__class__ is TracedArray and out._r is rec
    assert np.array_equal(out._a, a * 2.0 + b)
    (ins,) = rec.instrs
    assert ins.fn is kernel_function(_scaled_sum) and ins.kind == "call" and ins.pure
    assert ins.args == (rb._real, Slot((0,)), Slot((1,)), 2.0)
    assert ins.out == out._s == 2 and ins.reads == (0, 1) and ins.kwargs == {}


def test_an_array_passed_twice_is_one_read():
    a, _ = _arrays()
    rec, rb, (ta,) = _recording(a)
    with recording_now(rec):
        _scaled_sum(rb, ta, ta, 3)
    assert rec.instrs[0].reads == (0,)


def test_a_tuple_result_with_a_none_gets_a_slot_per_entry_and_replays():
    a, _ = _arrays()
    rec, rb, (ta,) = _recording(a)
    with recording_now(rec):
        first, second = _pair(rb, ta, False)
    assert second is None and first.__class__ is TracedArray
    (ins,) = rec.instrs
    assert ins.out == (1, 2) and first._s == 1


@pytest.mark.parametrize("unit, what", [(_transposed, "view"), (_itself, "argument")])
def test_a_result_that_is_no_fresh_array_takes_the_general_path(unit, what):
    a, _ = _arrays()
    rec, rb, (ta,) = _recording(a)
    with recording_now(rec):
        out = unit(rb, ta)
    if what == "argument":
        assert out is ta  # the argument's own traced array, as eager's is the argument
        assert rec.instrs[0].out == 0
    else:
        assert out._s == 1 and rec.base == {1: 0}  # writes to the view write the argument
        assert np.shares_memory(out._a, a)


def test_a_live_scalar_is_a_live_entry_of_the_unit_s_instruction():
    from arraygrad.compiler.recording import Live

    a, b = _arrays()
    rec, rb, (ta, tb) = _recording(a, b)
    live = LiveScalar(2.0, lambda: 2.0)
    with recording_now(rec):
        out = _scaled_sum(rb, ta, tb, live)
    (ins,) = rec.instrs
    assert ins.fn is kernel_function(_scaled_sum) and ins.args[3].__class__ is Live
    assert ins.args[3].getter is live.getter and rec.live  # read again at each replay
    assert np.array_equal(out._a, a * 2.0 + b)


def test_what_a_unit_cannot_take_is_recorded_op_by_op():
    a, b = _arrays()
    rec, rb, (ta, tb) = _recording(a, b)
    with recording_now(rec):
        _scaled_sum(rb, ta, tb, k=2.0)  # keywords
        rec.hints = []  # a capturing backend: a live scalar's hints come from the lanes
        _scaled_sum(rb, ta, tb, LiveScalar(2.0, lambda: 2.0))
    kinds = [ins.kind for ins in rec.instrs]
    assert kinds == ["*", "+=", "*", "+="], kinds
    assert all(ins.fn is not kernel_function(_scaled_sum) for ins in rec.instrs)


def test_a_leftover_of_another_recording_is_no_unit_argument():
    a, b = _arrays()
    old, _, (stale,) = _recording(a)
    rec, rb, (tb,) = _recording(b)
    with recording_now(rec):
        out = _scaled_sum(rb, stale, tb, 2.0)
    # op by op: the leftover's own operator runs on its real array (no slot of this
    # recording), and the sum with ``tb`` is recorded with that product as a constant
    assert all(ins.fn is not kernel_function(_scaled_sum) for ins in rec.instrs)
    assert any(0 in ins.reads for ins in rec.instrs)  # ``tb``, this recording's slot 0
    assert np.array_equal(getattr(out, "_a", out), a * 2.0 + b)


def test_a_broken_recording_records_no_unit():
    a, b = _arrays()
    rec, rb, (ta, tb) = _recording(a, b)
    rec.broken = "a graph break"
    with recording_now(rec):
        _scaled_sum(rb, ta, tb, 2.0)
    assert rec.instrs == []


def _mlp_step(seed, shape=(8, 6), momentum=0.9):
    ag.manual_seed(seed)
    model = ag.nn.Sequential(ag.nn.Linear(shape[-1], 5), ag.nn.ReLU(), ag.nn.Linear(5, 3))
    opt = ag.optim.SGD(model.parameters(), lr=0.05, momentum=momentum)
    rng = np.random.default_rng(seed)
    x = ag.tensor(rng.standard_normal(shape).astype(np.float32))
    y = ag.tensor(rng.integers(0, 3, shape[:-1]).astype(np.int64))

    return training_step(model, opt, lambda m: ag.nn.functional.cross_entropy(
        m(x).reshape(-1, 3), y.reshape(-1)))


def _host(result):
    loss, params = result
    return [host(loss)] + host(params)


@pytest.mark.parametrize("shape", [(8, 6), (2, 4, 6)])  # (2, 4, 6): linear's 3-D product
def test_a_training_step_made_of_units_replays_bit_for_bit(shape):
    eager, step = _mlp_step(0, shape), ag.compile(_mlp_step(0, shape))
    for _ in range(12):
        want, got = _host(eager()), _host(step())
        assert all(np.array_equal(w, g) for w, g in zip(want, got))
    assert step.stats["replays"] >= 9


def test_the_mlp_step_records_its_units_as_single_instructions():
    step = ag.compile(_mlp_step(1, momentum=0.0))  # (no optimizer state made: cached)
    step()
    (entry,) = [e for es in step._cache.values() for e in es]
    names = [getattr(ins.fn, "__name__", ins.fn) for ins in entry.program.rec.instrs]
    # (NLL's losses and picks: the NumPy backend's kernel ``nll_class_rows``, one instruction)
    units = {"linear_data", "log_softmax_data", "nll_class_rows", "linear_grad_data",
             "threshold_grad_data", "_log_softmax_grad_data", "targets_usable", "scaled_inplace"}
    if fast_paths.on:  # the backward's first-order formulas and the one-hot are fast paths
        assert units <= set(names), names
        assert len(names) < 40, names  # op by op it was over 60 (a count, not a time)
    else:
        assert {"linear_data", "log_softmax_data", "linear_grad_data"} <= set(names), names


# -- flattening at code generation (``compiler.unit_expand``) ----------------------------

@array_kernel
def _reads_a_value(backend, a):
    """No proper unit: its body reads a value into Python (a graph break when traced)."""
    return a * 2.0 if bool((a > 0).all()) else a * 3.0


def test_code_generation_flattens_a_unit_into_its_body_in_the_unit_s_slots():
    from arraygrad.compiler.unit_expand import expand_units

    a, b = _arrays()
    rec, rb, (ta, tb) = _recording(a, b)
    with recording_now(rec):
        out = _scaled_sum(rb, ta, tb, 2.0)
        later = out * out  # reads the unit's result slot
    assert rec.units and [ins.kind for ins in rec.instrs] == ["call", "*"]
    expand_units(rec)
    assert not rec.units
    mul, add, square = rec.instrs
    assert (mul.kind, add.kind, square.kind) == ("*", "+=", "*")
    assert mul.args == (Slot((0,)), 2.0) and add.args == (Slot((out._s,)), Slot((1,)))
    assert mul.out == add.out == out._s  # the body's result is the unit's own slot
    assert square.reads == (out._s,) and square.out == later._s


def test_a_tuple_unit_s_none_entry_stays_undefined_after_flattening():
    from arraygrad.compiler.unit_expand import expand_units

    a, _ = _arrays()
    rec, rb, (ta,) = _recording(a)
    with recording_now(rec):
        first, _ = _pair(rb, ta, False)
    expand_units(rec)
    (exp,) = rec.instrs
    assert exp.fn.__name__ == "exp" and exp.out == first._s


def test_a_unit_whose_body_breaks_or_feeds_a_guard_stays_one_call():
    from arraygrad.compiler.unit_expand import expand_units

    a, _ = _arrays()
    rec, rb, (ta,) = _recording(a)
    with recording_now(rec):
        _reads_a_value(rb, ta)
        guarded = _scaled_sum(rb, ta, ta, 1.0)
        assert int(guarded[0, 0]) == 2  # a value guard on the unit's result
    calls = [ins for ins in rec.instrs if ins.kind == "call"]
    assert len(calls) == 2 and rec.guards
    expand_units(rec)
    kept = [ins.fn for ins in rec.instrs if ins.kind == "call"]
    assert kernel_function(_reads_a_value) in kept and kernel_function(_scaled_sum) in kept
    assert all(rec.instrs[i].kind in ("call", "getitem") for i in rec.hoisted)


@array_kernel(writes=True)
def _scaled_add(fn, data, value, alpha):
    """A unit writing its second argument: ``data += value * alpha``."""
    return fn(data, value * alpha)


def test_a_unit_that_writes_its_argument_is_one_effect_answering_the_argument():
    import operator

    from arraygrad.compiler.unit_expand import expand_units

    a, b = _arrays()
    rec, _, (ta, tb) = _recording(a.copy(), b)
    with recording_now(rec):
        out = _scaled_add(operator.iadd, ta, tb, LiveScalar(-0.5, lambda: -0.5))
    assert out is ta and np.array_equal(ta._a, a - 0.25)  # eager's answer: the argument
    (ins,) = rec.instrs
    assert not ins.pure and ins.out == ta._s and ins.reads == (0, 1)  # never dropped
    expand_units(rec)
    mul, add = rec.instrs
    assert (mul.kind, add.kind) == ("*", "+=") and add.out == ta._s and not add.pure


def test_a_replay_calls_no_unit_function():
    step = ag.compile(_mlp_step(2, momentum=0.0))
    eager = _mlp_step(2, momentum=0.0)
    for _ in range(4):
        assert all(np.array_equal(w, g) for w, g in zip(_host(eager()), _host(step())))
    programs = [e.program for es in step._cache.values() for e in es]
    replay = next(p for p in programs if hasattr(p, "__defaults__") and p.__defaults__)
    units = [kernel_function(u) for u in _UNITS]
    assert not any(d is u for d in replay.__defaults__ for u in units), replay.__source__
