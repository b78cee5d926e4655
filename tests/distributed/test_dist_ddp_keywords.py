"""``DistributedDataParallel``'s PyTorch 2.13 keywords on 2 ranks (``ranks/ddp_keywords_ranks.py``):
delayed all-reduce, per-bucket caps, a device mesh, buffer syncing and its deprecation."""

import pytest

from _mpi_launch import run_ranks


@pytest.mark.timeout(120)
def test_ddp_keywords():
    proc = run_ranks("ddp_keywords_ranks.py", 2, timeout=100)
    assert proc.stdout.count("ddp keywords ok") == 2
