"""What the recorder no longer keeps per op: ``Recording.producer`` and ``written`` are
derived from the instructions when read, and must say what the per-op bookkeeping said."""

from __future__ import annotations

import numpy as np

from .helpers import recording_now, recording_of


def _recording():
    rec, (x,) = recording_of(np.arange(6.0))
    return rec, x


def test_producer_and_written_are_derived_from_the_instructions_as_they_grow():
    rec, x = _recording()
    with recording_now(rec):
        y = x + 1.0          # instruction 0 makes slot 1
        assert rec.producer == {1: 0} and rec.written == set()
        v = y[1:3]           # instruction 1: a view of slot 1 (slot 2)
        v += 2.0             # instruction 2: writes slot 2 in place, so its base too
        z = x * 2.0          # instruction 3 makes slot 3
    assert (y._s, v._s, z._s) == (1, 2, 3)
    assert rec.base == {2: 1}
    # read after more instructions came: the new ones are taken in (the in-place ``+=`` is
    # nobody's producer; the view's base counts as written)
    assert rec.producer == {1: 0, 2: 1, 3: 3}
    assert rec.written == {1, 2}
    assert [ins.kind for ins in rec.instrs] == ["+", "getitem", "+=", "*"]
    np.testing.assert_array_equal(y._a, [1.0, 4.0, 5.0, 4.0, 5.0, 6.0])


def test_a_value_guard_on_a_slot_written_in_place_is_refused():
    rec, x = _recording()
    with recording_now(rec):
        y = x + 1.0
        assert rec.guard(y._s, int, 1)  # a pure function of the input: a guard
        y += 1.0                        # from now on slot 1 is written
        assert not rec.guard(y._s, int, 2)
    assert [k for k, _fn, _v in rec.guards] == [1]
