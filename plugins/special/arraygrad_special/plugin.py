"""The ``special`` entry point: registers the SciPy/cupyx kernels of arraygrad's special
functions (the ops are the core's: ``arraygrad.special``).

Loading this module imports only arraygrad and this package; SciPy and CuPy are imported the
first time one of their kernels runs.
"""

from __future__ import annotations

from arraygrad.plugins import hookimpl

__all__ = ["arraygrad_register_ops"]


@hookimpl
def arraygrad_register_ops(registry):
    """Register a kernel per (op, backend) in ``kernels.KERNELS``."""
    from arraygrad_special import kernels

    for backend, table in (("numpy", kernels.numpy_kernels()), ("cupy", kernels.cupy_kernels())):
        for op_name, fn in table.items():
            registry.kernel(op_name, backend, fn)
