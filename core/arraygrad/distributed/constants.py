"""``torch.distributed.constants``: the process groups' default timeouts (PyTorch's values).

The ``mpi`` backend has no collective timeouts (MPI has none); these are what the
stores and ``monitored_barrier`` use when given no timeout, and what code written for
PyTorch reads.
"""

from __future__ import annotations

from datetime import timedelta

__all__ = ["default_pg_nccl_timeout", "default_pg_timeout"]

default_pg_timeout: timedelta = timedelta(minutes=30)
default_pg_nccl_timeout: timedelta | None = timedelta(minutes=10)
