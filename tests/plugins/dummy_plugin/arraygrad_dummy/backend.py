"""A small but complete backend: NumPy arrays, presented as device type ``dummy``.

It exists to prove that a third-party backend needs nothing but the public
contract; docs/writing-a-backend.md shows it as the minimal example.
"""

import numpy as np

from arraygrad.backends import Availability, Backend, Generator


class DummyGenerator(Generator):
    """Seeded NumPy PCG64 stream."""

    def __init__(self, seed):
        self._rng = np.random.default_rng(seed)

    def normal(self, shape, dtype):
        """Standard normal samples."""
        return self._rng.standard_normal(shape).astype(dtype)

    def uniform(self, shape, dtype):
        """Uniform samples in [0, 1)."""
        return self._rng.random(shape).astype(dtype)

    def integers(self, low, high, shape, dtype):
        """Integers in [low, high)."""
        return self._rng.integers(low, high, size=shape, dtype=dtype)

    def permutation(self, n):
        """A permutation of range(n) as int64."""
        return self._rng.permutation(n).astype(np.int64)


class DummyBackend(Backend):
    """NumPy through ``array_api_compat.numpy`` on the ``dummy`` device."""

    name = "dummy"
    device_type = "dummy"
    array_type = np.ndarray

    def __init__(self):
        import array_api_compat.numpy as xp

        self._xp = xp

    def is_available(self):
        """Always usable: NumPy needs no hardware."""
        return Availability(True)

    @property
    def xp(self):
        """The Array API namespace all array work goes through."""
        return self._xp

    def coerce(self, value):
        """NumPy reductions return scalars; tensors must hold arrays."""
        return np.asarray(value)

    def make_generator(self, seed):
        """A seeded random stream."""
        return DummyGenerator(seed)

    def scatter_add(self, target, key, values):
        """``target[key] += values``, accumulating repeated indices."""
        np.add.at(target, key, values)
        return target

    def to_host(self, array):
        """Already on the host: a NumPy view."""
        return np.asarray(array)
