"""``examples/ddp_digits.py`` runs on 2 ranks through the launcher (one epoch: the full run
is ``make demo-ddp``) and ends with bit-identical parameters on both ranks."""

import subprocess
import sys
from pathlib import Path

import pytest

from _mpi_launch import mpiexec

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "ddp_digits.py"


@pytest.mark.timeout(90)
def test_ddp_digits_one_epoch_on_two_ranks():
    pytest.importorskip("sklearn")
    mpiexec()
    proc = subprocess.run([sys.executable, "-m", "arraygrad.distributed.run", "--nproc-per-node",
                           "2", str(EXAMPLE), "--epochs", "1", "--target", "0"],
                          capture_output=True, text=True, timeout=80)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "on 2 process(es)" in proc.stdout
    assert "parameters on the 2 ranks: bit-identical" in proc.stdout
