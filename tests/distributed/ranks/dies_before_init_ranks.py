"""The last rank ends with ``os._exit(0)`` before ``init_process_group``; the others start
the process group and all-reduce, which needs it."""

import os

from mpi4py import MPI

if MPI.COMM_WORLD.Get_rank() == MPI.COMM_WORLD.Get_size() - 1:
    os._exit(0)

import arraygrad as ag  # noqa: E402
import arraygrad.distributed as dist  # noqa: E402

dist.init_process_group()
dist.all_reduce(ag.ones(2))
print("done", flush=True)
