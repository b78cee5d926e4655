"""The launcher: ``python -m arraygrad.distributed.run --nproc-per-node N [--hosts ...] train.py args``.

A thin wrapper over ``mpiexec`` (the one next to this Python, from the ``mpich``
wheel, else the first on PATH). It runs every rank as
``python -m arraygrad.distributed._rank train.py`` (``python -m mpi4py``, with the ranks'
liveness connections opened first), so an uncaught exception on one rank aborts the whole
job instead of leaving the others waiting, and gives each rank one BLAS/OpenMP thread
(N ranks on N cores), unless those variables are set already. It passes
``-disable-auto-cleanup``: Hydra would otherwise kill every other rank, silently, the
moment one exits without ``MPI_Finalize`` (``os._exit``, a crash), and report success when
that rank's status was 0; instead the ranks see the departure themselves (``liveness``)
and end the job, status 1, naming the rank.
``--hosts a,b`` starts ``N`` ranks on
each host (MPICH's ``-hosts``/``-ppn``; the hosts need the same Python environment
and password-less ssh). ``--dry-run`` prints the command. The exit status is the job's.

``mpiexec -n N python -m mpi4py train.py`` (or plain ``python train.py`` under
``mpiexec``) works too, but there Hydra's clean-up races the ranks when one dies without
``MPI_Finalize`` (docs/distributed.md).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["build_command", "main"]

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m arraygrad.distributed.run",
                                description="Run a training script on several MPI processes.")
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=1,
                   help="processes per host (default 1)")
    p.add_argument("--hosts", default=None,
                   help="comma-separated host names; --nproc-per-node ranks on each")
    p.add_argument("--mpiexec", default=None, help="the mpiexec to use")
    p.add_argument("--dry-run", action="store_true", help="print the command, run nothing")
    p.add_argument("script", help="the training script")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def _find_mpiexec(given: str | None) -> str:
    if given:
        return given
    here = Path(sys.executable).parent / "mpiexec"
    if here.exists():
        return str(here)
    found = shutil.which("mpiexec")
    if found is None:
        raise SystemExit("arraygrad.distributed.run: no mpiexec found; "
                         "pip install 'arraygrad[mpi]' (mpi4py and the mpich wheel)")
    return found


def build_command(argv: list[str]) -> list[str]:
    """The ``mpiexec`` command line ``main`` runs for ``argv``."""
    return _command(_parser().parse_args(argv))


def _command(args: argparse.Namespace) -> list[str]:
    if args.nproc_per_node < 1:
        raise SystemExit(f"--nproc-per-node must be at least 1, got {args.nproc_per_node}")
    cmd = [_find_mpiexec(args.mpiexec), "-disable-auto-cleanup"]
    if args.hosts:
        hosts = [h for h in args.hosts.split(",") if h]
        cmd += ["-n", str(args.nproc_per_node * len(hosts)), "-ppn", str(args.nproc_per_node),
                "-hosts", ",".join(hosts)]
    else:
        cmd += ["-n", str(args.nproc_per_node)]
    return cmd + [sys.executable, "-m", "arraygrad.distributed._rank", args.script, *args.args]


def main(argv: list[str] | None = None) -> int:
    """Run the job; its exit status."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    cmd = _command(args)
    if args.dry_run:
        print(shlex.join(cmd))
        return 0
    env = dict(os.environ)
    for name in THREAD_VARIABLES:
        env.setdefault(name, "1")
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
