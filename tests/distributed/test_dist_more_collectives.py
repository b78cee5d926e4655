"""The collectives, object calls, groups and meshes added for PyTorch parity, on 1-4 MPI ranks
against their NumPy definitions, and their bad use on 2 ranks (every rank raises, nothing
hangs; monitored_barrier names the late rank)."""

import pytest

from _mpi_launch import run_ranks


@pytest.mark.timeout(150)
@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_added_collectives_match_numpy(n):
    proc = run_ranks("more_collectives_ranks.py", n, timeout=120)
    assert proc.stdout.count(f"of {n}: ok") == n


@pytest.mark.timeout(90)
def test_added_calls_bad_use_raises_on_every_rank():
    proc = run_ranks("more_errors_ranks.py", 2, timeout=75)
    assert proc.stdout.count("errors ok") == 2
