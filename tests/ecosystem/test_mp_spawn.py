"""``arraygrad.multiprocessing``: the standard library's names, ``spawn``/``start_processes``
and their errors (a child's exception with its traceback, an exit code), sharing strategies;
a tensor crosses a queue by value."""

from __future__ import annotations

import multiprocessing
import operator
import os
import sys

import pytest

import arraygrad as ag
import arraygrad.multiprocessing as mp


def test_reexports_the_standard_library():
    for name in multiprocessing.__all__:
        assert hasattr(mp, name), name
    assert mp.Queue is not None and mp.cpu_count() == multiprocessing.cpu_count()


def test_spawn_success_and_raised_exception():
    assert mp.spawn(operator.add, args=(1,), nprocs=2) is None
    with pytest.raises(mp.ProcessRaisedException, match="ZeroDivisionError") as info:
        mp.spawn(operator.truediv, args=(0,), nprocs=1)
    assert info.value.error_index == 0 and "Process 0 terminated" in str(info.value)


def test_exit_code_and_join_false():
    context = mp.start_processes(os._exit, args=(), nprocs=1, join=False, start_method="fork")
    assert isinstance(context, mp.ProcessContext) and len(context.pids()) == 1
    while not context.join():  # os._exit(0): index 0 exits with code 0, a success
        pass


def test_exit_code_is_reported():
    with pytest.raises(mp.ProcessExitedException,
                       match="process 1 terminated with exit code 1") as info:
        mp.start_processes(os._exit, nprocs=2, start_method="fork")
    assert info.value.exit_code == 1 and info.value.error_index == 1


def test_spawn_warns_for_another_start_method():
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(operator.add, args=(1,), nprocs=1, start_method="fork")


def test_sharing_strategies():
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    if sys.platform == "linux":
        assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}
    mp.set_sharing_strategy("file_system")
    assert mp.get_sharing_strategy() == "file_system"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError, match="invalid sharing strategy"):
        mp.set_sharing_strategy("shm")


def test_exceptions_pickle():
    import pickle

    e = mp.ProcessExitedException("m", 1, 2, 3, "SIGKILL")
    back = pickle.loads(pickle.dumps(e))
    assert (back.error_index, back.error_pid, back.exit_code, back.signal_name) == (1, 2, 3,
                                                                                   "SIGKILL")


def _send(q):
    q.put(ag.arange(3.0))


def test_a_tensor_crosses_a_queue_by_value():
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_send, args=(q,))
    p.start()
    got = q.get(timeout=60)
    p.join()
    assert got.tolist() == [0.0, 1.0, 2.0]
