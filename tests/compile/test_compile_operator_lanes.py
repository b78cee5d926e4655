"""The recorder's lean lanes (a traced array's operators on a traced array, a plain number
or a live scalar, ``.T``, and namespace calls of one or two operands) must append exactly
the instruction, slot and view base the general ``record_call`` path appends for the same
call, and return the same kind of value; what they do not cover (a capturing backend's
live-scalar hints, another recording's leftover, ``out=``, a broken recording) must still
take the general path. Also: the liveness attribute, and a traced array's forwarding of
its real array's names without a ``__getattr__``."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from arraygrad.backends.registry import default_backend
from arraygrad.compiler.recording import Live, Recording, Slot, current, is_live
from arraygrad.compiler.recording_backend import recording_namespace
from arraygrad.compiler.scalars import LiveScalar, recording_flag
from arraygrad.compiler.traced import TracedArray, record_call

from .helpers import recording_now, recording_of


def _inputs():
    return (np.arange(6.0).reshape(2, 3) + 1.0, np.full((2, 3), 0.5), np.array(2.0))


# (lane, the same call through the general path): each gets fresh inputs a, b, s (0-d)
CASES = {
    "a*b": (lambda a, b, s: a * b,
            lambda a, b, s: record_call(operator.mul, (a, b), {}, kind="*")),
    "a*a": (lambda a, b, s: a * a,
            lambda a, b, s: record_call(operator.mul, (a, a), {}, kind="*")),
    "a-2": (lambda a, b, s: a - 2,
            lambda a, b, s: record_call(operator.sub, (a, 2), {}, kind="-")),
    "a<0.5": (lambda a, b, s: a < 0.5,
              lambda a, b, s: record_call(operator.lt, (a, 0.5), {}, kind="<")),
    "1.5-a": (lambda a, b, s: 1.5 - a,
              lambda a, b, s: record_call(operator.sub, (1.5, a), {}, kind="-")),
    "a@b.T": (lambda a, b, s: a @ b.T,
              lambda a, b, s: record_call(
                  operator.matmul,
                  (a, record_call("T", (b,), {}, kind="attr", call=operator.attrgetter("T"))),
                  {}, kind="@")),
    "a+=b": (lambda a, b, s: operator.iadd(a, b),
             lambda a, b, s: record_call(operator.iadd, (a, b), {}, pure=False, kind="+=")),
    "a*=a": (lambda a, b, s: operator.imul(a, a),
             lambda a, b, s: record_call(operator.imul, (a, a), {}, pure=False, kind="*=")),
    "a/=4": (lambda a, b, s: operator.itruediv(a, 4),
             lambda a, b, s: record_call(operator.itruediv, (a, 4), {}, pure=False,
                                         kind="/=")),
    "-a": (lambda a, b, s: -a, lambda a, b, s: record_call(operator.neg, (a,), {}, kind="u-")),
    "abs(a)": (lambda a, b, s: abs(a), lambda a, b, s: record_call(abs, (a,), {})),
    # a 0-d operand: NumPy answers a NumPy scalar, which eager's wrap coerces to an array
    "s*2.0": (lambda a, b, s: s * 2.0,
              lambda a, b, s: record_call(operator.mul, (s, 2.0), {}, kind="*")),
    "s*s": (lambda a, b, s: s * s,
            lambda a, b, s: record_call(operator.mul, (s, s), {}, kind="*")),
    "3-s": (lambda a, b, s: 3 - s,
            lambda a, b, s: record_call(operator.sub, (3, s), {}, kind="-")),
    "-s": (lambda a, b, s: -s, lambda a, b, s: record_call(operator.neg, (s,), {}, kind="u-")),
    "a.T.T": (lambda a, b, s: a.T.T,
              lambda a, b, s: record_call(
                  "T", (record_call("T", (a,), {}, kind="attr", call=operator.attrgetter("T")),),
                  {}, kind="attr", call=operator.attrgetter("T"))),
}


def _run(case):
    rec, (a, b, s) = recording_of(*_inputs())
    with recording_now(rec):
        value = case(a, b, s)
    return rec, (a, b, s), value


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_lane_records_what_the_general_path_records(name):
    lane, general = CASES[name]
    got_rec, got_in, got = _run(lane)
    want_rec, want_in, want = _run(general)
    assert list(got_rec.instrs) == list(want_rec.instrs)
    assert got_rec.instrs and all(type(i) is type(w) for i, w in zip(got_rec.instrs,
                                                                       want_rec.instrs))
    assert (got_rec.nslots, got_rec.base) == (want_rec.nslots, want_rec.base)
    assert type(got) is TracedArray and type(want) is TracedArray
    assert got._s == want._s and got._r is got_rec
    # an in-place operator returns its target itself, as eager does
    assert [got is t for t in got_in] == [want is t for t in want_in]
    assert type(got._a) is type(want._a) is np.ndarray
    np.testing.assert_array_equal(got._a, want._a)


LR = LiveScalar(0.25, lambda: 0.25)
LIVE_CASES = {
    "a*lr": (lambda a: a * LR, lambda a: record_call(operator.mul, (a, LR), {}, kind="*")),
    "lr-a": (lambda a: LR - a, lambda a: record_call(operator.sub, (LR, a), {}, kind="-")),
    "a*=lr": (lambda a: operator.imul(a, LR),
              lambda a: record_call(operator.imul, (a, LR), {}, pure=False, kind="*=")),
}


@pytest.mark.parametrize("name", sorted(LIVE_CASES))
@pytest.mark.parametrize("hints", [False, True])
def test_a_live_scalar_operand_is_a_live_template_entry(name, hints):
    def run(case):
        rec, (a,) = recording_of(np.arange(3.0) + 1.0)
        rec.hints = [] if hints else None  # a capturing backend: the general path's hints
        with recording_now(rec):
            value = case(a)
        return rec, a, value
    got_rec, got_a, got = run(LIVE_CASES[name][0])
    want_rec, want_a, want = run(LIVE_CASES[name][1])
    (ins,), (wins,) = got_rec.instrs, want_rec.instrs
    live_at = 0 if name == "lr-a" else 1
    entry, wentry = ins.args[live_at], wins.args[live_at]
    assert type(entry) is Live and entry.getter is LR.getter
    assert (entry.reads, entry.meets) == (wentry.reads, wentry.meets)
    if hints:  # probed and met, as the general path does
        assert entry.reads == frozenset() and entry.meets == (np.dtype(np.float64),)
    assert ins.args[1 - live_at] == wins.args[1 - live_at] == Slot((0,))
    assert ins[2:] == wins[2:] and ins.fn is wins.fn
    assert got_rec.live and want_rec.live and got._s == want._s
    assert (got is got_a) == (want is want_a) == (name == "a*=lr")
    np.testing.assert_array_equal(got._a, want._a)


def test_a_leftover_of_another_recording_is_a_constant_operand():
    old, (x,) = recording_of(np.ones(3))
    rec, (a,) = recording_of(np.arange(3.0))
    with recording_now(rec):
        y = a + x
        a += x
    add, iadd = rec.instrs
    assert add.args[0] == Slot((0,)) and add.args[1] is x._a and add.reads == (0,)
    assert iadd.args[1] is x._a and iadd.reads == (0,) and not old.instrs
    np.testing.assert_array_equal(y._a, [1.0, 2.0, 3.0])


def test_operators_record_nothing_when_the_recording_is_not_live():
    rec, (a, b, _s) = recording_of(*_inputs())
    with recording_now(rec):
        rec.broken = "a graph break"
        y = a * b
        z = a.T
        r = operator.iadd(a, 1.0)
        w = -a
    recording_flag.on = False
    try:
        current.rec = rec
        v = 2.0 * b
    finally:
        current.rec = None
    assert rec.instrs == [] and rec.nslots == 3
    assert all(type(t) is np.ndarray for t in (y, z, r, w, v))
    assert r is a._a  # the real array, written in place
    np.testing.assert_array_equal(a._a, _inputs()[0] + 1.0)


# namespace calls (``RecordingNamespace``): the lean lane vs ``record_call`` with the same
# arguments; each gets fresh inputs a (2x3), b (2x3), s (0-d)
XP = default_backend().xp
RXP = recording_namespace(XP)  # (shared: what every recording's namespace calls are)
ZEROS = np.zeros(3)  # a constant operand (one object: templates compare by identity first)
NS_CASES = {  # name: (namespace function, positional, keyword arguments)
    "matmul": lambda a, b, s: ("matmul", (a, XP.permute_dims(b, (1, 0))), {}),
    "max-axis-keepdims": lambda a, b, s: ("max", (a,), {"axis": 1, "keepdims": True}),
    "sum-all": lambda a, b, s: ("sum", (a,), {}),  # a NumPy scalar, coerced
    "astype": lambda a, b, s: ("astype", (a, np.dtype(np.float32)), {}),
    "maximum-constant": lambda a, b, s: ("maximum", (a, ZEROS), {}),
    "multiply-same": lambda a, b, s: ("multiply", (a, a), {}),
    "reshape-view": lambda a, b, s: ("reshape", (a, (3, 2)), {}),
    "asarray-itself": lambda a, b, s: ("asarray", (a,), {}),
    "out": lambda a, b, s: ("add", (a, b), {"out": b}),
}


def _ns_run(case, lane):
    rec, (a, b, s) = recording_of(*_inputs())
    with recording_now(rec):
        name, args, kwargs = case(a, b, s)
        value = (getattr(RXP, name)(*args, **kwargs) if lane
                 else record_call(getattr(XP, name), args, dict(kwargs), always=True))
    return rec, (a, b, s), value


@pytest.mark.parametrize("name", sorted(NS_CASES))
def test_the_namespace_lane_records_what_the_general_path_records(name):
    # (the general path first: a backend scalar it coerces is one the lane then coerces)
    want_rec, want_in, want = _ns_run(NS_CASES[name], False)
    got_rec, got_in, got = _ns_run(NS_CASES[name], True)
    assert list(got_rec.instrs) == list(want_rec.instrs) and got_rec.instrs
    assert (got_rec.nslots, got_rec.base) == (want_rec.nslots, want_rec.base)
    assert type(got) is type(want) is TracedArray and got._s == want._s
    assert [got is t for t in got_in] == [want is t for t in want_in]
    assert type(got._a) is type(want._a)
    np.testing.assert_array_equal(got._a, want._a)


def test_a_namespace_call_with_a_live_scalar_or_a_leftover_takes_the_general_path():
    old, (x,) = recording_of(np.ones(3))
    rec, (a,) = recording_of(np.arange(3.0))
    lr = LiveScalar(0.5, lambda: 0.5)
    with recording_now(rec):
        y = RXP.multiply(a, lr)
        z = RXP.add(a, x)
    mul, add = rec.instrs
    assert isinstance(mul.args[1], Live) and rec.live
    assert add.args == (Slot((0,)), x._a) and add.reads == (0,) and not old.instrs
    np.testing.assert_array_equal(y._a, [0.0, 0.5, 1.0])
    np.testing.assert_array_equal(z._a, [1.0, 2.0, 3.0])


def test_current_live_follows_the_recording_and_its_break():
    rec, (a,) = recording_of(np.arange(3.0))
    assert current.live is None and not is_live(rec)
    with recording_now(rec):
        assert current.live is rec and is_live(rec)
        recording_flag.on = False  # a live scalar's getter runs: the flag is read, not watched
        assert current.live is rec and not is_live(rec)
        recording_flag.on = True
        rec.broken = "a graph break"
        assert current.live is None and not is_live(rec)
        rec.broken = None
        assert current.live is rec and is_live(rec)
    assert current.live is None and not is_live(rec)
    with pytest.raises(AttributeError):
        current.live = rec  # derived, never set


def test_a_traced_array_forwards_its_real_array_s_names_without_a_getattr_hook():
    # no ``__getattr__``: every attribute read of a traced array (``_a``, ``shape``) would go
    # through a slower hook; the real array's names are class attributes instead
    assert "__getattr__" not in vars(TracedArray)
    assert not hasattr(TracedArray, "reshape")  # (an instance's attribute only)
    rec, (a, _b, _s) = recording_of(*_inputs())
    with recording_now(rec):
        r = a.reshape(3, 2)       # a method: recorded, its result a view of slot 0
        c = a.cumsum(axis=1)      # a method with keywords
        re = a.real               # an array attribute: an ``attr`` instruction
        assert a.itemsize == 8 and a.flags.writeable  # metadata: as it is
        with pytest.raises(AttributeError):
            a.no_such_name
    assert [(i.fn, i.kind) for i in rec.instrs] == [("reshape", "method"), ("cumsum", "method"),
                                                   ("real", "attr")]
    assert rec.base == {r._s: 0} and rec.instrs[1].kwargs == {"axis": 1}
    np.testing.assert_array_equal(r._a, _inputs()[0].reshape(3, 2))
    np.testing.assert_array_equal(c._a, _inputs()[0].cumsum(axis=1))
    assert type(re) is TracedArray
    with pytest.raises(TypeError):
        round(a)  # special methods the class does not define stay undefined


def test_a_traced_array_s_memory_export_breaks_the_graph():
    breaks = []
    rec = Recording(default_backend(), breaks.append)
    a = TracedArray(np.arange(3.0), rec.new_slot(), rec)
    rec.ninputs = 1
    with recording_now(rec):
        interface = a.__array_interface__
    assert interface["shape"] == (3,) and len(breaks) == 1
    assert "__array_interface__" in breaks[0]


def test_slot_templates_are_made_once_and_shared_by_every_recording():
    one, (a,) = recording_of(np.arange(3.0))
    other, (b,) = recording_of(np.arange(3.0))
    with recording_now(one):
        y = a * 2.0
    with recording_now(other):
        z = b + 1.0
    assert one.templates is other.templates  # a new slot makes no template of its own
    assert (y._s, z._s) == (1, 1) and one.instrs[0].args[0] is other.instrs[0].args[0]
    entry = one.templates[12345]  # made at its first use, then the same object
    assert entry == Slot((12345,)) and entry.k == 12345 and one.templates[12345] is entry
