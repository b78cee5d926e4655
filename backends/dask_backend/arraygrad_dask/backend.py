"""The Dask backend: chunked arrays whose operations build a task graph, computed on demand.

Dask arrays are lazy (``lazy = True``): an op adds tasks, and nothing runs until a value is
needed. The core calls ``materialize`` after each ``optimizer.step`` (and at ``.item()``), which
``persist``s the arrays: the next step's graph starts from computed chunks instead of every
step before. With a ``dask.distributed.Client`` started, the arrays persist on its workers
(Dask's default scheduler is then the client's); without one, on the local threads.

No memory is shared between a Dask array and its slices, so the backend declares
``mutable_arrays = False``: writes return new arrays (one task over a one-chunk array, else
Dask's ``__setitem__`` on a copy: ``writes``), and the core rebinds tensors and replays their
views. Small graphs (one chunk per layer) compute in the calling thread, where Dask's thread
pool would only add overhead (``scheduling``).

Device type ``dask``: ``cpu`` keeps meaning NumPy; ``ag.tensor(..., device="dask")``.
"""

from __future__ import annotations

from arraygrad.backends import Availability, Backend

__all__ = ["DaskBackend"]


class DaskBackend(Backend):
    """``dask.array`` arrays (through array-api-compat's namespace), chunked automatically."""

    name = "dask"
    device_type = "dask"
    priority = 100
    mutable_arrays = False
    lazy = True

    def __init__(self) -> None:
        self._xp = None
        self._status: Availability | None = None

    def is_available(self) -> Availability:
        if self._status is None:
            try:
                import array_api_compat.dask.array  # noqa: F401
            except Exception as exc:  # never raise from a probe
                self._status = Availability(False, f"dask is not usable ({exc})")
            else:
                self._status = Availability(True)
        return self._status

    @property
    def xp(self):
        if self._xp is None:
            from arraygrad_dask.namespace import dask_namespace

            self._xp = dask_namespace()
        return self._xp

    @property
    def array_type(self):
        if self._xp is None:
            return None
        import dask.array

        return dask.array.Array

    def coerce(self, value):
        # a computed NumPy scalar or array (host kernels' results) becomes one chunk
        import dask.array

        return value if isinstance(value, dask.array.Array) else dask.array.asarray(value)

    def make_generator(self, seed: int):
        # the host PCG64 stream the strict backend draws from, moved into Dask arrays
        from arraygrad_strict.backend import StrictGenerator

        return StrictGenerator(seed, self.xp)

    def write(self, array, key, values, how="set"):
        from arraygrad_dask.writes import write

        return write(array, key, values, how)

    def scatter_add(self, target, key, values):
        # Dask has no scatter: the sum is made on the host (computing both operands)
        import numpy as np

        host = np.array(target, copy=True)
        np.add.at(host, _host_key(key), np.asarray(values))
        return self.from_host(host)

    def materialize(self, arrays):
        import dask

        from arraygrad_dask.scheduling import scheduler_for

        return list(dask.persist(*arrays, scheduler=scheduler_for(arrays)))

    def to_host(self, array):
        import numpy as np

        from arraygrad_dask.scheduling import scheduler_for

        if hasattr(array, "dask"):
            array = array.compute(scheduler=scheduler_for([array]))
        return np.asarray(array)

    def from_host(self, data, dtype=None):
        import dask.array
        import numpy as np

        host = np.array(data, dtype=dtype)  # a copy: tensor() promises fresh storage
        return dask.array.from_array(host, chunks="auto")


def _host_key(key):
    """An index key with every Dask array in it computed into a NumPy array."""
    import numpy as np

    if isinstance(key, tuple):
        return tuple(_host_key(k) for k in key)
    if hasattr(key, "dask"):
        return np.asarray(key)
    return key
