"""The JAX backend: every array operation through ``jax.numpy``, whose arrays are immutable.

JAX arrays cannot be written into, so the backend declares ``mutable_arrays = False`` and
writes with JAX's own functional updates (``x.at[key].set(v)``): the core rebinds the
tensor to the result (docs/writing-a-backend.md, "Immutable and lazy arrays").

Device type: ``cuda`` when JAX has a GPU (``jax[cuda]`` installed), else ``jax``: on the host,
``cpu`` keeps meaning NumPy (as the strict backend's ``strict`` does), and a distinct type
makes transfers between the two real.

64-bit: PyTorch's default integer is int64 and its double float64, so the backend turns on
JAX's 64-bit mode when it first imports JAX, unless ``ARRAYGRAD_JAX_X64=0``. With the mode
off, the 64-bit dtypes are not offered at all (JAX would make float32 of a float64 request:
``Backend._build_dtype_tables`` leaves out a dtype whose arrays come back as another).
"""

from __future__ import annotations

import os

from arraygrad.backends import Availability, Backend

__all__ = ["JaxBackend"]

_UPDATES = ("set", "add", "multiply")


def _jax():
    """``jax`` imported, with the 64-bit mode the backend promises (see the module's doc)."""
    import jax

    if os.environ.get("ARRAYGRAD_JAX_X64", "1") != "0":
        jax.config.update("jax_enable_x64", True)
    return jax


class JaxBackend(Backend):
    """``jax.numpy`` arrays on JAX's default device."""

    name = "jax"
    priority = 10  # below CuPy's 100 when both serve ``cuda``
    mutable_arrays = False

    def __init__(self) -> None:
        self._xp = None
        self._status: Availability | None = None
        self.device_type = self._probe_device_type()

    @staticmethod
    def _probe_device_type() -> str:
        # only the installed distribution is looked at: importing JAX here would make every
        # ``import arraygrad`` pay for it
        try:
            from importlib.metadata import distributions

            names = {d.metadata["Name"] for d in distributions()}
        except Exception:  # never raise from discovery
            return "jax"
        return "cuda" if any(n and n.startswith("jax-cuda") for n in names) else "jax"

    def is_available(self) -> Availability:
        if self._status is None:
            try:
                jax = _jax()
                if self.device_type == "cuda" and jax.default_backend() != "gpu":
                    self._status = Availability(False, "jax[cuda] is installed but JAX finds "
                                                "no GPU")
                else:
                    self._status = Availability(True)
            except Exception as exc:  # never raise from a probe
                self._status = Availability(False, f"jax is not usable ({exc})")
        return self._status

    @property
    def xp(self):
        if self._xp is None:
            self._xp = _jax().numpy
        return self._xp

    @property
    def array_type(self):
        if self._xp is None:
            return None
        import jax

        return jax.Array

    def make_generator(self, seed: int):
        # the host PCG64 stream the strict backend draws from, moved into JAX arrays: the
        # same seed gives the same numbers as there (JAX's own keys would need threading)
        from arraygrad_strict.backend import StrictGenerator

        return StrictGenerator(seed, self.xp)

    def write(self, array, key, values, how="set"):
        if how not in _UPDATES:
            raise ValueError(f"write: unknown update {how!r} (set, add or multiply)")
        return getattr(array.at[key], how)(values)

    def scatter_add(self, target, key, values):
        return target.at[key].add(values)

    def to_host(self, array):
        import numpy as np

        return np.asarray(array)

    def from_host(self, data, dtype=None):
        import numpy as np

        host = np.asarray(data) if dtype is None else np.asarray(data, dtype=dtype)
        return self.xp.asarray(host)

    def synchronize(self) -> None:
        import jax

        jax.effects_barrier()
