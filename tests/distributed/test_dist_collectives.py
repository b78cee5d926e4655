"""``arraygrad.distributed``'s collectives on 1, 2 and 3 MPI ranks (3: odd, uneven shards),
each against its NumPy definition: every ``ReduceOp``, async ``Work``, in-place buffers,
broadcast/reduce from every root, gathers, scatters, point-to-point, objects, groups."""

import pytest

from _mpi_launch import run_ranks


@pytest.mark.timeout(90)
@pytest.mark.parametrize("n", [1, 2, 3])
def test_every_collective_matches_numpy(n):
    proc = run_ranks("collectives_ranks.py", n)
    assert proc.stdout.count(f"of {n}: ok") == n
