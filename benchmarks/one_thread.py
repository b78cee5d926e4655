"""One thread for every framework a benchmark times.

PyTorch is told ``torch.set_num_threads(1)`` where it is imported; NumPy's BLAS (OpenBLAS,
MKL) reads its thread count from the environment when NumPy loads, so a script that times
must set these variables before its first ``import numpy``. Without them NumPy's products ran
on every core while PyTorch's ran on one: ``matmul_big`` read 0.55x PyTorch on two cores and
0.94x on one.
"""

from __future__ import annotations

import os

__all__ = ["ONE_THREAD", "pin_one_thread"]

ONE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def pin_one_thread() -> None:
    """Set the BLAS and OpenMP thread counts of this process (and of the processes it starts)
    to one; call it before NumPy is imported."""
    os.environ.update(ONE_THREAD)
