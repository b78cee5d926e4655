"""Start a script on N MPI ranks from a test: ``mpiexec -n N python -m mpi4py script``.

``python -m mpi4py`` turns an uncaught exception on one rank into ``MPI_Abort``, so a
failing rank ends the whole job instead of leaving the others waiting; the
subprocess timeout is the last line of defence against a hang.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

RANKS = Path(__file__).parent / "ranks"


def mpiexec() -> str:
    """The ``mpiexec`` next to this Python (the ``mpich`` wheel's), else on PATH; skip if none."""
    pytest.importorskip("mpi4py")
    here = Path(sys.executable).parent / "mpiexec"
    found = str(here) if here.exists() else shutil.which("mpiexec")
    if found is None:
        pytest.skip("no mpiexec (pip install 'arraygrad[mpi]')")
    return found


def run_ranks(script: str, n: int, *args: str, timeout: float = 60,
              check: bool = True) -> subprocess.CompletedProcess:
    """Run ``ranks/<script>`` on ``n`` ranks; with ``check``, fail the test on a non-zero exit."""
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONWARNINGS="ignore")
    cmd = [mpiexec(), "-n", str(n), sys.executable, "-m", "mpi4py", str(RANKS / script), *args]
    proc = run_bounded(cmd, timeout, env)
    if check and proc.returncode != 0:
        pytest.fail(f"{' '.join(cmd[1:3])} {script} exited {proc.returncode}\n"
                    f"--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}")
    return proc


def run_bounded(cmd: list[str], timeout: float,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run ``cmd`` in a session of its own; past ``timeout``, kill the whole session (the
    ranks too: killing ``mpiexec`` alone would leave them running) and fail the test."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(cmd)} hung: killed after {timeout} s\n--- stdout\n"
                    f"{out[-4000:]}\n--- stderr\n{err[-4000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)
