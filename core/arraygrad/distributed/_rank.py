"""What the launcher runs on every rank: ``python -m arraygrad.distributed._rank script args``.

mpi4py's own runner (as ``python -m mpi4py``: an uncaught exception aborts the whole job),
with the ranks' liveness connections (``liveness``) opened before the script starts rather
than by ``init_process_group``. The launcher passes ``-disable-auto-cleanup`` to ``mpiexec``,
so it is the ranks that see a rank die, at any point of the script: one that dies before
``init_process_group`` ends the job too, instead of leaving the others waiting in it.
"""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Open the liveness connections, then run the script as ``python -m mpi4py`` does."""
    from mpi4py import MPI  # here, not at import: importing this module starts nothing
    from mpi4py.run import main as run_script

    from arraygrad.distributed import liveness

    liveness.start(MPI.COMM_WORLD, launched=True)
    run_script()


if __name__ == "__main__":
    main()
