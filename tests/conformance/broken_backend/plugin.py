"""The ``broken`` backend (device type ``broken``) with ONE wrong kernel, and ONE op whose
gradient is wrong, registered with ``arraygrad.plugins.register_plugin`` (no entry point).

* kernel: the namespace's ``exp`` returns ``exp(x) * 1.01``;
* gradient: op ``broken_scale`` computes ``3 x`` but its backward returns ``6 g``.

``BROKEN_XFAIL`` (environment, comma-separated ``check_id=reason``) declares expected
failures, so the tests can also prove strictness (a passing xfail or an unknown id is an error);
``BROKEN_UNDECLARED`` leaves out its declaration of the dtype it lacks (bfloat16).
"""

import os
import types

import array_api_compat.numpy as np_xp
import numpy as np

import arraygrad as ag
from arraygrad.autograd import Function
from arraygrad.conformance import OpCase
from arraygrad.plugins import hookimpl
from arraygrad_numpy.backend import NumpyBackend


def _namespace():
    ns = types.ModuleType("broken_xp")
    ns.__dict__.update({k: getattr(np_xp, k) for k in dir(np_xp) if not k.startswith("__")})
    ns.exp = lambda x: np_xp.exp(x) * 1.01  # the wrong kernel
    return ns


class BrokenBackend(NumpyBackend):
    """NumPy arrays on a ``broken`` device, through a namespace whose ``exp`` is 1% off."""

    name = "broken"
    device_type = "broken"
    priority = 0

    def __init__(self):
        super().__init__()
        self._xp = _namespace()


class _Scale(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3.0

    @staticmethod
    def backward(ctx, g):
        return g * 6.0  # the wrong gradient: should be 3 g


def broken_scale(x):
    """``3 x`` with a backward off by a factor of two."""
    return _Scale.apply(x)


SCALE_CASES = [OpCase("broken_scale", "broken_scale/basic", broken_scale,
                      lambda make: (make((2, 3)),), checks=("forward", "grad", "dtypes",
                                                            "devices"))]


@hookimpl
def arraygrad_register_backends(register):
    """Register the broken backend."""
    register(BrokenBackend())


@hookimpl
def arraygrad_register_ops(registry):
    """Register the op with the wrong gradient, with its conformance case."""
    registry.op("broken_scale", broken_scale, cases=SCALE_CASES)


@hookimpl
def arraygrad_conformance(register):
    """Declare the broken backend's capabilities and the expected failures from BROKEN_XFAIL."""
    spec = os.environ.get("BROKEN_XFAIL", "")
    xfail = dict(item.split("=", 1) for item in spec.split(",") if item)
    register.backend("broken", capabilities={"dtypes": ("float32", "float64"), "float64": True,
                                             # its namespace is array-api-compat's NumPy
                                             # one (BROKEN_UNDECLARED: the declaration left
                                             # out, for the check that catches it)
                                             "lacks": {} if os.environ.get("BROKEN_UNDECLARED")
                                             else {"bfloat16": "no bfloat16 namespace"}},
                     xfail=xfail)
