"""The ``tf32`` backend: NumPy whose float32 matmul rounds its operands to TF32 (10
mantissa bits), as tensor cores do when TF32 is allowed. The op checks run in float64
here, and the float32 ``dtypes`` checks of matmul notice only where an output is near
0; ``numerics[mlp_float32_grads]`` must fail on any data.
"""

import types

import numpy as np

from arraygrad.plugins import hookimpl
from arraygrad_numpy import NumpyBackend


def _tf32(a):
    """``a`` rounded to the nearest TF32 value (float32 with 13 low mantissa bits cleared)."""
    a = np.asarray(a)
    if a.dtype != np.float32:
        return a
    bits = a.view(np.uint32)
    return ((bits + np.uint32(0x1000)) & np.uint32(0xFFFFE000)).view(np.float32)


class Tf32Backend(NumpyBackend):
    """NumPy arrays on a ``tf32`` device; float32 matmul on TF32-rounded operands."""

    name = "tf32"
    device_type = "tf32"
    priority = 0

    def __init__(self):
        super().__init__()
        ns = types.ModuleType("tf32_xp")
        ns.__dict__.update(vars(self._xp))
        ns.matmul = lambda a, b, /: np.matmul(_tf32(a), _tf32(b))
        self._xp = ns


@hookimpl
def arraygrad_register_backends(register):
    """Register the TF32-matmul backend."""
    register(Tf32Backend())
