"""``DistributedDataParallel`` on 2 and 3 ranks (uneven shards) against single-process
full-batch training in float64: SGD with momentum and Adam, tiny buckets, parameters
within 1e-12 of the reference and bit-identical across ranks after every step; ``no_sync``;
unused parameters (with and without ``find_unused_parameters``); buffers follow rank 0;
before init, an error."""

import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.nn.parallel import DistributedDataParallel
from _mpi_launch import run_ranks


@pytest.mark.timeout(120)
@pytest.mark.parametrize("n", [2, 3])
def test_ddp_matches_full_batch_training(n):
    proc = run_ranks("ddp_ranks.py", n, timeout=100)
    assert proc.stdout.count("ddp ok") == n


def test_ddp_before_init_process_group_is_an_error():
    with pytest.raises(RuntimeError, match="DistributedDataParallel: Default process group"):
        DistributedDataParallel(nn.Linear(2, 2))
    assert not isinstance(nn.Linear(2, 2), DistributedDataParallel)
