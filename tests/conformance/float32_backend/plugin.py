"""A float32-only backend (as many accelerators are): NumPy underneath, float64 withheld.

Registered by tests/conformance/test_conformance.py through the hermetic runner; it
declares ``float64: False`` so the suite checks gradients in float32 with wider
tolerances.
"""

from arraygrad.plugins import hookimpl
from arraygrad_numpy import NumpyBackend


class Float32Backend(NumpyBackend):
    """NumPy arrays on a device type of its own, with no float64 (nor float16)."""

    name = "f32only"
    device_type = "f32only"
    priority = 0

    def supported_dtypes(self):
        from arraygrad import dtypes

        return [dtypes.float32, dtypes.int32, dtypes.int64, dtypes.bool]


@hookimpl
def arraygrad_register_backends(register):
    """Register the float32-only backend."""
    register(Float32Backend())


@hookimpl
def arraygrad_conformance(register):
    """No float64: the suite must use float32 tolerances."""
    lacks = {name: "the float32-only test backend" for name in (
        "float16", "bfloat16", "float64", "uint8", "int8", "int16", "uint16", "uint32", "uint64",
        "complex64", "complex128")}
    register.backend("f32only", capabilities={"dtypes": ("float32", "int32", "int64", "bool"),
                                              "float64": False, "device_types": ("f32only",),
                                              "lacks": lacks})
