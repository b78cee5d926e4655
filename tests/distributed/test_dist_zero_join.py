"""ZeroRedundancyOptimizer (sharded Adam state, consolidate_state_dict, load_state_dict) and
Join (uneven inputs, throw_on_early_termination) on 1-3 MPI ranks, against Adam on the
averaged gradient in one process."""

import pytest

from _mpi_launch import run_ranks


@pytest.mark.timeout(200)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_zero_and_join_match_single_process_adam(n):
    proc = run_ranks("zero_join_ranks.py", n, timeout=180)
    assert proc.stdout.count(f"of {n}: zero ok") == n
