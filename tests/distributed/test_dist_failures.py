"""Jobs that go wrong must end, on every rank, with an error that says what happened:
backward passes that do not pair up across ranks (DDP), a rank that leaves the job early.
Every job runs under a timeout that kills it whole (``run_bounded``): a hang fails the test."""

import os
import sys

import pytest

from _mpi_launch import RANKS, mpiexec, run_bounded, run_ranks


@pytest.mark.parametrize("mode", ["twice_forward", "retain"])
def test_ddp_passes_that_do_not_pair_up_raise_on_every_rank(mode):
    proc = run_ranks("ddp_pairing_ranks.py", 2, mode, timeout=60)
    out = proc.stdout  # mpiexec forwards output as it comes: two ranks' lines may run together
    assert out.count("RAISED") == 2, out + proc.stderr
    assert out.count("RAISED step 0:") == 1 and out.count("RAISED step 1:") == 1, out
    assert out.count("backward passes do not pair up") == 2, out
    assert out.count("rank 0 at backward 1 since parameter update 1; "
                     "rank 1 at backward 2 since parameter update 0") == 2, out


def _ended_naming_the_rank(proc, n, how):
    assert proc.returncode != 0, proc.stdout + proc.stderr
    left = f"rank {n - 1} left the job early ({how}"
    for r in range(n - 1 if how.startswith("it ended") else n):  # os._exit: the leaver is silent
        assert f"arraygrad.distributed: rank {r}: ending the job: {left}" in proc.stderr, \
            proc.stderr
    assert "done" not in proc.stdout


@pytest.mark.parametrize("n", [2, 3])
def test_a_rank_that_exits_mid_training_ends_the_job_on_every_rank(n):
    proc = run_ranks("leave_early_ranks.py", n, "exit", timeout=90, check=False)
    _ended_naming_the_rank(proc, n, "it exited")


def _launch(n, *args, script="leave_early_ranks.py"):
    mpiexec()  # skips without MPI
    cmd = [sys.executable, "-m", "arraygrad.distributed.run", "--nproc-per-node", str(n),
           str(RANKS / script), *args]
    return run_bounded(cmd, 90, dict(os.environ, PYTHONWARNINGS="ignore"))


def test_a_rank_that_calls_os_exit_ends_the_launched_job_on_every_rank():
    proc = _launch(2, "_exit")
    _ended_naming_the_rank(proc, 2, "it ended without shutting down")


def test_a_rank_gone_before_init_process_group_ends_the_launched_job():
    # The launcher turns Hydra's clean-up off: the ranks must see this death themselves.
    proc = _launch(2, script="dies_before_init_ranks.py")
    _ended_naming_the_rank(proc, 2, "it ended without shutting down")


def test_ranks_that_finish_before_the_others_are_no_error():
    for n, proc in ((3, run_ranks("leave_early_ranks.py", 3, "finish", timeout=90)),
                    (2, _launch(2, "finish"))):
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.count("done") == n, proc.stdout
        assert "ending the job" not in proc.stderr


def test_a_process_forked_from_a_rank_does_not_leave_for_it():
    proc = run_ranks("fork_child_ranks.py", 2, timeout=60)
    assert proc.stdout.count("done [8.0, 8.0, 8.0]") == 2, proc.stdout
