"""Jobs that go wrong must end, on every rank, with an error that says what happened:
backward passes that do not pair up across ranks (DDP), a rank that leaves the job early.
Every job runs under a timeout that kills it whole (``run_bounded``): a hang fails the test."""

import pytest

from _mpi_launch import run_ranks


@pytest.mark.parametrize("mode", ["twice_forward", "retain"])
def test_ddp_passes_that_do_not_pair_up_raise_on_every_rank(mode):
    proc = run_ranks("ddp_pairing_ranks.py", 2, mode, timeout=60)
    raised = [line for line in proc.stdout.splitlines() if line.startswith("RAISED")]
    assert len(raised) == 2, proc.stdout + proc.stderr
    for line in raised:
        assert "backward passes do not pair up" in line
        assert "rank 0 at backward 1 since parameter update 1" in line
        assert "rank 1 at backward 2 since parameter update 0" in line
