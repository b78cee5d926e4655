"""The strict backend: every array operation through ``array_api_strict``.

``array_api_strict`` implements the Array API standard and nothing more, so a
core that runs here uses only the standard. The few things the standard lacks
(random numbers, scatter-add, host copies) are done with NumPy on host copies,
which the contract allows a backend to do.

Its device type is ``strict``, not ``cpu``: both it and NumPy compute on the
host, but ``cpu`` must keep meaning NumPy (priority decides a shared device
type, and a user asking for ``cpu`` expects NumPy arrays). A distinct type also
makes transfers between the two real, so the suite's mixed-device checks run
against it: ``ag.tensor(..., device="strict")``.
"""

from __future__ import annotations

from arraygrad.backends import Availability, Backend, Generator

__all__ = ["StrictBackend", "StrictGenerator"]


class StrictGenerator(Generator):
    """A seeded NumPy PCG64 stream whose samples are moved into ``array_api_strict`` arrays."""

    def __init__(self, seed: int, xp):
        import numpy as np

        self._np = np
        self._rng = np.random.default_rng(seed)
        self._xp = xp

    def _out(self, host, dtype):
        return self._xp.astype(self._xp.asarray(host), dtype)

    def copy(self):
        """A generator at the same point of the stream (the modules it holds are shared, not
        copied: a module cannot be deep-copied)."""
        clone = object.__new__(StrictGenerator)
        clone._np, clone._xp = self._np, self._xp
        clone._rng = self._np.random.Generator(type(self._rng.bit_generator)(0))
        clone._rng.bit_generator.state = self._rng.bit_generator.state
        return clone

    def state(self):
        """The PCG64 bit generator's state (NumPy's dict of ints and strings)."""
        return dict(self._rng.bit_generator.state)

    def set_state(self, state):
        """Restore ``state()``'s dict (a PCG64 state only)."""
        if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
            raise ValueError(f"not a PCG64 state: {state!r:.80}")
        bit_generator = self._np.random.PCG64(0)
        bit_generator.state = state
        self._rng = self._np.random.Generator(bit_generator)

    def normal(self, shape, dtype):
        return self._out(self._rng.standard_normal(shape), dtype)

    def uniform(self, shape, dtype):
        return self._out(self._rng.random(shape), dtype)

    def integers(self, low, high, shape, dtype):
        return self._out(self._rng.integers(low, high, size=shape), dtype)

    def permutation(self, n):
        return self._out(self._rng.permutation(n), self._xp.int64)


class StrictBackend(Backend):
    """Arrays of ``array_api_strict`` on its default (host) device, as device ``strict``."""

    name = "strict"
    device_type = "strict"
    priority = 100

    def __init__(self):
        self._xp = None
        self._status = None

    def is_available(self) -> Availability:
        if self._status is None:
            try:
                import array_api_strict  # noqa: F401
            except Exception as exc:  # never raise from a probe
                self._status = Availability(False, f"array_api_strict is not installed ({exc})")
            else:
                self._status = Availability(True)
        return self._status

    @property
    def xp(self):
        if self._xp is None:
            import array_api_strict

            self._xp = array_api_strict
        return self._xp

    @property
    def array_type(self):
        # Only known once the library is imported; every xp result is already one.
        return type(self.xp.asarray(0)) if self._xp is not None else None

    def make_generator(self, seed: int) -> StrictGenerator:
        return StrictGenerator(seed, self.xp)

    def scatter_add(self, target, key, values):
        # The standard has no scatter; accumulate on a host copy and write back.
        import numpy as np

        host = np.array(np.from_dlpack(target), copy=True)
        np.add.at(host, _host_key(key), np.from_dlpack(values))
        target[...] = self.xp.asarray(host)
        return target

    def to_host(self, array):
        import numpy as np

        return np.from_dlpack(array)

    def from_host(self, data, dtype=None):
        import numpy as np

        host = np.array(data)  # always a copy: tensor() promises fresh storage
        out = self.xp.asarray(host)
        return out if dtype is None else self.xp.astype(out, dtype)


    def memory(self, array):
        # array_api_strict keeps each array's NumPy array as ``_array`` (its views are NumPy
        # views): the addresses are NumPy's, and a storage's owner is that NumPy array
        from arraygrad_numpy.backend import host_memory

        return host_memory(getattr(array, "_array", array))


def _host_key(key):
    """An index key with every strict array in it replaced by a NumPy array."""
    import numpy as np

    if isinstance(key, tuple):
        return tuple(_host_key(k) for k in key)
    if hasattr(key, "__dlpack__"):
        return np.from_dlpack(key)
    return key
