"""The core's own ``arraygrad_register_distributed`` plugin: the ``mpi`` backend.

Registered by ``arraygrad.distributed.registry`` into the plugin manager (so it
exists with plugin autoload disabled too); other backends use the
``arraygrad`` entry points and the same hook (``nccl`` comes with the CuPy backend's
plugin, ``arraygrad_cupy.nccl``: the core imports no array library).
"""

from __future__ import annotations

import importlib.util
from typing import Any

from arraygrad.plugins.markers import hookimpl

PLUGIN_NAME = "arraygrad.distributed"


class _MPIFactory:
    """Makes the world's ``MPIBackend``; ``is_available()``: whether mpi4py is installed
    (a factory may carry ``is_available``; ``is_backend_available`` asks it)."""

    def __call__(self, timeout: Any = None) -> Any:
        from arraygrad.distributed.mpi_backend import make_world

        return make_world(timeout)

    @staticmethod
    def is_available() -> bool:
        """Whether mpi4py can be imported here."""
        return importlib.util.find_spec("mpi4py") is not None


_mpi = _MPIFactory()


@hookimpl
def arraygrad_register_distributed(register: Any) -> None:
    """``mpi``: MPI through mpi4py."""
    register("mpi", _mpi)
