"""``DistributedDataParallel`` over the JAX and Dask backends: 2 MPI ranks match full-batch
training on the same device after every step (ranks/ddp_device_ranks.py)."""

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "distributed"))
from _mpi_launch import run_ranks  # noqa: E402


@pytest.mark.backends  # two MPI jobs of a few seconds each: make test-backends runs it
@pytest.mark.timeout(180)
def test_ddp_matches_full_batch_training_on_the_device(device):
    proc = run_ranks("ddp_device_ranks.py", 2, device, timeout=150)
    assert proc.stdout.count(f"ddp on {device} ok") == 2, proc.stdout[-2000:]
