"""Live scalars in captured programs (``compiler.capture_plan``): buffered as 0-d arrays of the
dtype eager casts them to, getters that read what the program wrote evaluated between two
segments, and the programs the plan cannot make exact left uncaptured, all equal to eager.

The getters read a counter the program itself advances, so their values change at every
call (a Python value the function reads would be guarded instead)."""

from __future__ import annotations

import pytest

import arraygrad as ag
from arraygrad.compiler import capture as capture_mod
from arraygrad.compiler.scalars import live

from .helpers import host, same
from .test_compile_capture import fake_capture  # noqa: F401 (the fixture, shared)


def _programs(compiled):
    return [e.program for es in compiled._cache.values() for e in es]


def _captured(compiled):
    return [p for p in _programs(compiled)
            if isinstance(p, capture_mod.CapturedProgram) and p.launches is not None]


def _run_twins(make, calls=8):
    """Run ``make()``'s function eagerly and compiled; every result and state value must be
    eager's, bit for bit."""
    eager_f, eager_state = make()
    comp_f, comp_state = make()
    compiled = ag.compile(comp_f)
    for i in range(calls):
        assert same(host(eager_f()), host(compiled())), i
        assert same(host(eager_state), host(comp_state)), i
    return compiled


def _scale(count):
    # 1/3 + 0.1 * n: values whose float32 and float64 roundings differ
    return live(lambda: 1 / 3 + 0.1 * count.item())


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
def test_a_live_scalar_is_a_buffer_of_the_arrays_dtype(fake_capture, dtype):
    def make():
        count = ag.tensor(0.0)
        w = ag.tensor([1.5, -2.0, 0.7], dtype=dtype)

        def f():
            with ag.no_grad():
                w.mul_(_scale(count)).add_(1.0)  # the getter reads ``count`` before it moves
                count.add_(1)
                return w * 2
        return f, [count, w]

    compiled = _run_twins(make)
    programs = _captured(compiled)
    assert programs and not any(p.off for p in programs)
    for program in programs:
        assert len(program.launches) == 1
        assert [str(b.dtype) for b in program._buffers] == [str(dtype).split(".")[-1]]
    assert fake_capture.launches == compiled.stats["replays"] >= 5


@pytest.mark.parametrize("dtype", [ag.float32, ag.float64])
def test_a_live_clamp_bound_is_captured_in_the_arrays_dtype(fake_capture, dtype):
    # clamp gives its bounds the array's dtype (``clamp_data``): nothing left undecided
    def make():
        count = ag.tensor(0.0)
        w = ag.tensor([1.5, -2.0, 0.5], dtype=dtype)

        def f():
            with ag.no_grad():
                out = w.clamp(min=_scale(count))
                count.add_(1)
                return out
        return f, [count, w]

    compiled = _run_twins(make)
    assert _captured(compiled)
    assert fake_capture.launches == compiled.stats["replays"] >= 5


def test_a_getter_reading_what_the_program_wrote_is_read_between_two_launches(fake_capture):
    def make():
        count = ag.tensor(0.0)
        w = ag.tensor([1.0, 2.0])

        def f():
            with ag.no_grad():
                count.add_(1)  # written before the getter below reads it
                w.mul_(_scale(count))
                return w + 0
        return f, [count, w]

    compiled = _run_twins(make)
    programs = _captured(compiled)
    assert programs and all(len(p.launches) == 2 for p in programs)
    assert fake_capture.launches == 2 * compiled.stats["replays"] >= 10  # two segments each


def test_a_write_after_the_dependent_read_keeps_the_program_uncaptured(fake_capture):
    def make():
        count = ag.tensor(0.0)
        w = ag.tensor([1.0, 2.0])

        def f():
            with ag.no_grad():
                count.add_(1)
                w.mul_(_scale(count))
                count.mul_(1.5)  # no single point where one read sees both writes
                return w + 0
        return f, [count, w]

    compiled = _run_twins(make)
    assert compiled.stats["replays"] >= 5
    assert not any(isinstance(p, capture_mod.CapturedProgram) for p in _programs(compiled))
    assert fake_capture.captures == 0


@pytest.mark.parametrize("use", ["pow exponent", "comparison"])
def test_an_undecidable_buffer_dtype_keeps_the_program_uncaptured(fake_capture, use):
    def make():
        count = ag.tensor(0.0)
        w = ag.tensor([1.5, 2.0, 0.5])

        def f():
            with ag.no_grad():
                if use == "pow exponent":  # NumPy special-cases some exponents
                    out = w ** _scale(count)
                else:  # a comparison with the number, then a where
                    out = ag.where(w < _scale(count), w * 0.0, w)
                count.add_(1)
                return out
        return f, [count, w]

    compiled = _run_twins(make)
    assert compiled.stats["replays"] >= 5
    assert not any(isinstance(p, capture_mod.CapturedProgram) for p in _programs(compiled))
    assert fake_capture.captures == 0


def test_an_argument_written_in_place_keeps_the_program_uncaptured(fake_capture):
    # a captured program reads the capture's own copy of each argument: a write to it
    # would never reach the caller's tensor
    w = ag.tensor([1.0, 2.0])

    def f(x):
        with ag.no_grad():
            x.mul_(2)
            return x + w

    compiled = ag.compile(f)
    for i in range(5):
        a, b = ag.tensor([float(i), 1.0]), ag.tensor([float(i), 1.0])
        assert same(host(f(a)), host(compiled(b))), i
        assert same(host(a), host(b)), i
    assert compiled.stats["replays"] >= 3
    assert not any(isinstance(p, capture_mod.CapturedProgram) for p in _programs(compiled))


def test_a_failing_value_guard_launches_nothing_and_records_anew(fake_capture):
    import numpy as np

    import arraygrad.nn.functional as F
    from arraygrad import nn

    def make():
        ag.manual_seed(0)
        model = nn.Linear(4, 3)
        opt = ag.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

        def step(x, y):
            opt.zero_grad()
            # value guards: yes/no reads of y's range, and of whether every target is
            # ignored (its mean is then 0/0: the picks stay zero)
            loss = F.cross_entropy(model(x), y, ignore_index=1)
            loss.backward()
            opt.step()
            return loss
        return step, model

    eager, m1 = make()
    step, m2 = make()
    compiled = ag.compile(step)
    rng = np.random.default_rng(3)
    targets = [[0, 1, 2, 0], [1, 1, 1, 1]]  # some ignored, all ignored: each fails the
    # other's guard
    for i, pick in enumerate([0, 0, 0, 1, 1, 0, 1, 0, 1, 1]):
        x = rng.standard_normal((4, 4)).astype(np.float32)
        y = np.array(targets[pick])
        assert same(host(eager(ag.tensor(x), ag.tensor(y))),
                    host(compiled(ag.tensor(x), ag.tensor(y)))), i
        assert same(host(list(m1.parameters())), host(list(m2.parameters()))), i
    assert len(_captured(compiled)) == 2
    assert fake_capture.launches == compiled.stats["replays"] >= 5
