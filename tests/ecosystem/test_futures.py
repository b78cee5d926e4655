"""``arraygrad.futures``: Future's completion, errors, callbacks and collect_all/wait_all, with
PyTorch's messages; completion from another thread."""

from __future__ import annotations

import threading

import pytest

import arraygrad as ag
from arraygrad.futures import Future, collect_all, wait_all


def test_result_and_value():
    f = Future()
    assert not f.done()
    with pytest.raises(RuntimeError, match="has not completed"):
        f.value()
    f.set_result(3)
    assert f.done() and f.wait() == 3 and f.value() == 3
    with pytest.raises(RuntimeError, match="Future can only be marked completed once"):
        f.set_result(4)
    assert ag.Future is Future


def test_exception():
    f = Future()
    f.set_exception(ValueError("boom"))
    with pytest.raises(ValueError, match="boom"):
        f.wait()
    with pytest.raises(AssertionError, match="not an Exception"):
        Future().set_exception("x")


def test_then_and_callbacks():
    f = Future()
    g = f.then(lambda fut: fut.wait() + 1)
    seen = []
    f.add_done_callback(lambda fut: seen.append(fut.value()))
    f.set_result(1)
    assert g.wait() == 2 and seen == [1]
    h = f.then(lambda fut: 1 / 0)
    with pytest.raises(RuntimeError, match="error when running the callback: ZeroDivisionError"):
        h.wait()


def test_wait_across_threads_and_collect_all():
    futs = [Future() for _ in range(3)]
    both = collect_all(futs)

    def finish():
        for i, f in enumerate(futs):
            f.set_result(i * 10)

    t = threading.Thread(target=finish)
    t.start()
    assert [f.wait() for f in both.wait()] == [0, 10, 20]
    t.join()
    assert wait_all(futs) == [0, 10, 20]
    assert collect_all([]).wait() == []
