"""``benchmarks/ddp.py`` runs (1 and 2 ranks, 2 steps) and prints a row per rank count
(timings are printed, never asserted)."""

import subprocess
import sys
from pathlib import Path

import pytest

from _mpi_launch import mpiexec

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.timeout(90)
def test_ddp_benchmark_runs():
    mpiexec()
    out = subprocess.run([sys.executable, "benchmarks/ddp.py", "--ranks", "1", "2", "--steps",
                          "2"], cwd=ROOT, capture_output=True, text=True, timeout=80, check=True)
    rows = [line.split() for line in out.stdout.splitlines()[1:]]
    assert [r[0] for r in rows] == ["1", "2"]
    assert all(float(r[1]) > 0 for r in rows)
