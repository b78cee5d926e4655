"""A compiled function's own globals guard its programs only where a recording read them
(``compiler.global_reads``): a global read on a branch the step does not take costs nothing,
one it reads is a guard, and code that writes globals (or a helper's globals) is guarded by
value as before. Every call is compared with eager."""

from __future__ import annotations

import functools
import warnings

import arraygrad as ag

SCALE = 2.0
NOISE = 0.0
USE_NOISE = False
COUNT = 0
w = ag.tensor([1.0, 2.0, 3.0])


def _step(x):
    y = w * x * SCALE
    if USE_NOISE:
        y = y + NOISE
    return y.sum()


def _run(fn, calls, before):
    """``fn`` eagerly and compiled, ``before(i)`` changing globals before call ``i``."""
    compiled = ag.compile(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a graph break or a full cache would warn
        for i in range(calls):
            before(i)
            x = ag.ones(3)
            assert fn(x).item() == compiled(x).item(), i
    return compiled.stats


def _set(**values):
    globals().update(values)


def test_a_global_read_only_on_an_untaken_branch_costs_nothing():
    _set(SCALE=2.0, USE_NOISE=False)
    stats = _run(_step, 10, lambda i: _set(NOISE=float(i)))  # (a new value every call)
    assert stats == {"records": 1, "replays": 9, "eager": 0}, stats


def test_a_global_the_step_reads_is_a_guard():
    _set(SCALE=2.0, USE_NOISE=False, NOISE=0.0)

    def before(i):
        if i == 4:
            _set(SCALE=3.0)  # read at every call: records again
        if i == 7:
            _set(USE_NOISE=True, NOISE=5.0)  # the other branch, and NOISE read from now on
    stats = _run(_step, 10, before)
    assert stats["records"] == 3 and stats["replays"] == 7, stats
    _set(USE_NOISE=False)


def _counting_step(x):
    global COUNT
    COUNT += 1  # a write to a global: its reads cannot be tracked (every global is guarded)
    return (w * x).sum() * SCALE


def test_a_step_writing_a_global_is_exact():
    _set(SCALE=2.0, COUNT=0)
    compiled = ag.compile(_counting_step)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # (never replayable: eager, said once)
        for i in range(5):
            x = ag.ones(3)
            want = _counting_step(x).item()
            assert compiled(x).item() == want
    assert COUNT == 10  # each call ran the step's Python: eager's and the compiled one's


def _helper(x):
    return x * SCALE  # a helper's global: guarded by value (its reads are not tracked)


@functools.wraps(_helper)
def _wrapped(x):
    return (_helper(x) * w).sum()


def test_a_wrapped_or_helper_functions_globals_are_guarded_by_value():
    _set(SCALE=2.0)

    def before(i):
        if i == 3:
            _set(SCALE=4.0)
    stats = _run(_wrapped, 6, before)
    assert stats["records"] == 2, stats
    _set(SCALE=2.0)
