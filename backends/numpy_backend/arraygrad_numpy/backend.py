"""The NumPy backend: the Array API namespace from array-api-compat, plus NumPy extras."""

from __future__ import annotations

import numpy as np

from arraygrad.backends import Availability, Backend, Generator

__all__ = ["NumpyBackend", "NumpyGenerator"]


class NumpyGenerator(Generator):
    """Seeded ``numpy.random.Generator`` (PCG64) producing arrays of the requested dtype."""

    def __init__(self, seed: int):
        self._rng = np.random.default_rng(seed)

    def normal(self, shape, dtype):
        if dtype in (np.float32, np.float64):
            return self._rng.standard_normal(shape, dtype=dtype)
        return self._rng.standard_normal(shape).astype(dtype)

    def uniform(self, shape, dtype):
        if dtype in (np.float32, np.float64):
            return self._rng.random(shape, dtype=dtype)
        return self._rng.random(shape).astype(dtype)

    def integers(self, low, high, shape, dtype):
        return self._rng.integers(low, high, size=shape, dtype=dtype)

    def permutation(self, n):
        return self._rng.permutation(n).astype(np.int64)


class NumpyBackend(Backend):
    """CPU arrays with NumPy."""

    name = "numpy"
    device_type = "cpu"
    priority = 100
    array_type = np.ndarray

    def __init__(self):
        import array_api_compat.numpy as xp

        self._xp = xp

    def is_available(self) -> Availability:
        return Availability(True)

    @property
    def xp(self):
        return self._xp

    def coerce(self, value):
        # NumPy returns scalars (np.float32) from 0-d reductions; tensors hold arrays.
        return np.asarray(value)

    def make_generator(self, seed: int) -> NumpyGenerator:
        return NumpyGenerator(seed)

    def scatter_add(self, target, key, values):
        np.add.at(target, key, values)
        return target

    def to_host(self, array):
        return np.asarray(array)

    def from_host(self, data, dtype=None):
        return np.array(data, dtype=dtype)

    def from_bytes(self, data, native_dtype, shape):
        dt = np.dtype(native_dtype)
        # frombuffer gives a read-only view of the bytes; tensors must be writable
        return np.frombuffer(data, dtype=dt.newbyteorder("<")).astype(dt, copy=True).reshape(shape)

    def from_dlpack(self, obj):
        return np.from_dlpack(obj)
