"""A backend's dtype table never lies: a dtype whose arrays come back as another is not
offered (JAX with 64-bit mode off makes float32 of a float64 request)."""

import os
import subprocess
import sys
import types

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.backends import Availability, Backend


def _narrowing_namespace():
    """NumPy's names, but a float64 request makes float32 arrays (JAX without x64)."""
    ns = types.SimpleNamespace(**{k: getattr(np, k) for k in (
        "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "bool")})

    def empty(shape, dtype=None):
        return np.empty(shape, dtype=np.float32 if dtype is np.float64 else dtype)

    ns.empty = empty
    return ns


class Narrowing(Backend):
    name = "narrowing"
    device_type = "narrowing"

    def is_available(self):
        return Availability(True)

    @property
    def xp(self):
        return _narrowing_namespace()

    def make_generator(self, seed):
        raise NotImplementedError

    def scatter_add(self, target, key, values):
        raise NotImplementedError

    def to_host(self, array):
        return array


def test_a_dtype_made_as_another_is_not_offered():
    backend = Narrowing()
    assert backend.arraygrad_dtype(np.dtype(np.float32)) is ag.float32  # was float64 before
    with pytest.raises(TypeError, match="does not support dtype arraygrad.float64"):
        backend.native_dtype(ag.float64)
    assert backend.native_dtype(ag.float32) is np.float32


def test_jax_without_64_bit_mode_offers_no_64_bit_dtypes():
    pytest.importorskip("jax", reason="jax is not installed (pip install arraygrad[jax])")
    code = ("import arraygrad as ag\n"
            "x = ag.tensor([1.0, 2.0], device='jax')\n"
            "print(x.dtype, (x * 2).dtype)\n"
            "try:\n    ag.zeros(2, dtype=ag.float64, device='jax')\n"
            "except TypeError as e:\n    print('refused', 'float64' in str(e))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "ARRAYGRAD_JAX_X64": "0"})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["arraygrad.float32", "arraygrad.float32", "refused", "True"]
