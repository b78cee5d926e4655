"""The launcher ``python -m arraygrad.distributed.run``: the ``mpiexec`` command it builds
(one host, several hosts, the script's own arguments untouched), a real 2-rank run whose
ranks see one BLAS thread each, and a failing rank's exit status passed through."""

import os
import re
import subprocess
import sys

import pytest

from arraygrad.distributed.run import THREAD_VARIABLES, build_command, main
from _mpi_launch import RANKS, mpiexec


def test_command_one_host_and_several():
    cmd = build_command(["--nproc-per-node", "3", "--mpiexec", "mpx", "train.py", "--lr", "1",
                         "--dry-run"])
    assert cmd == ["mpx", "-disable-auto-cleanup", "-n", "3", sys.executable, "-m",
                   "arraygrad.distributed._rank", "train.py", "--lr", "1",
                   "--dry-run"]
    cmd = build_command(["--nproc_per_node", "2", "--hosts", "a,b", "--mpiexec", "mpx", "t.py"])
    assert cmd[:8] == ["mpx", "-disable-auto-cleanup", "-n", "4", "-ppn", "2", "-hosts", "a,b"]
    with pytest.raises(SystemExit):
        build_command(["--nproc-per-node", "0", "t.py"])


def test_dry_run_prints(capsys):
    assert main(["--nproc-per-node", "2", "--mpiexec", "mpx", "--dry-run", "t.py", "x"]) == 0
    assert capsys.readouterr().out.split()[:4] == ["mpx", "-disable-auto-cleanup", "-n", "2"]


@pytest.mark.timeout(60)
def test_launch_two_ranks_and_pass_the_exit_status_through():
    mpiexec()  # skips without MPI
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    proc = subprocess.run([sys.executable, "-m", "arraygrad.distributed.run", "--nproc-per-node",
                           "2", str(RANKS / "launched_ranks.py"), "--fail-on", "-1"],
                          capture_output=True, text=True, timeout=50, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # mpiexec forwards each rank's output as it comes: two ranks' lines may run together
    found = sorted(re.findall(r"rank\d+/\d+:threads=\d+", proc.stdout))
    assert found == ["rank0/2:threads=1", "rank1/2:threads=1"], proc.stdout
    proc = subprocess.run([sys.executable, "-m", "arraygrad.distributed.run", "--nproc-per-node",
                           "2", str(RANKS / "launched_ranks.py"), "--fail-on", "1"],
                          capture_output=True, text=True, timeout=50, env=env)
    assert proc.returncode != 0 and "failing on purpose" in proc.stderr
