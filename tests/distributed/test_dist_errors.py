"""Errors of ``arraygrad.distributed``: before ``init_process_group`` (in this process, no
MPI), bad arguments and mismatched tensors on 2 ranks (every rank raises, nothing mixes),
and a rank that raises ending the whole job with a non-zero exit within seconds."""


import pytest

import arraygrad as ag
import arraygrad.distributed as dist
from _mpi_launch import run_ranks


@pytest.mark.parametrize("call, args", [
    ("all_reduce", (ag.ones(2),)), ("broadcast", (ag.ones(2), 0)), ("reduce", (ag.ones(2), 0)),
    ("barrier", ()), ("get_rank", ()), ("get_world_size", ()), ("new_group", ([0],)),
    ("all_gather_object", ([None], 1)), ("send", (ag.ones(1), 1)), ("recv", (ag.ones(1), 0)),
    ("reduce_scatter_tensor", (ag.ones(1), ag.ones(1))), ("destroy_process_group", ()),
])
def test_before_init_is_an_error_naming_the_call(call, args):
    assert not dist.is_initialized()
    # RuntimeError as the issue asks, and the ValueError PyTorch raises
    with pytest.raises(RuntimeError, match=f"^{call}: Default process group has not been "
                                           "initialized") as info:
        getattr(dist, call)(*args)
    assert isinstance(info.value, ValueError)


def test_reduce_op_names():
    assert [op.name for op in dist.ReduceOp] == ["SUM", "AVG", "PRODUCT", "MIN", "MAX"]
    assert dist.is_available()


@pytest.mark.timeout(60)
def test_mismatches_and_bad_arguments_raise_on_every_rank():
    proc = run_ranks("errors_ranks.py", 2)
    assert proc.stdout.count("errors ok") == 2


@pytest.mark.timeout(60)
def test_a_raising_rank_ends_the_job():
    # the job must end by itself: run_ranks' timeout is the hang guard, not a time budget
    proc = run_ranks("raising_rank.py", 2, timeout=45, check=False)
    assert proc.returncode != 0
    assert "rank 1 fails on purpose" in proc.stderr
