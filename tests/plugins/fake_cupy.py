"""A fake ``cupy`` made of NumPy: runs the CuPy backend's own code on any machine.

``FakeCuda(n)`` builds fake ``cupy``, ``cupyx``, ``cupyx.scipy.special`` and
``array_api_compat.cupy`` modules; ``install(n)`` puts them in ``sys.modules``
(for a fresh interpreter, e.g. a conformance run on the fake). The fake
records which device was current at every allocation, so tests can check that
``cuda:1`` work really happens on device 1.

Where real CuPy behaves differently from NumPy in a way arraygrad has tripped
over, the fake copies CuPy, so a test on the fake catches the bug:

* ``cupyx.scipy.special.polygamma(n, x)`` evaluates ``cupy.where(n == 0, ...)``
  on its order: CuPy 14 fails on a Python int ``n`` with ``AttributeError:
  'bool' object has no attribute 'astype'``; the order must be an array.
* ``cupy.cuda.Event``: recorded on the current device only (CUDA refuses an
  event of another device), and ``cupy.cuda.get_elapsed_time`` raises
  ``cudaErrorNotReady`` until the device has been synchronized.

``FakeCuda(n, device_arrays=True)`` also fakes CUDA graphs (``fake_cuda_graph``):
its arrays are ``DeviceArray``s whose operations a capturing ``cupy.cuda.Stream``
records instead of running, and ``Graph.launch()`` runs them again.
"""

from __future__ import annotations

import sys
import time
import types

from fake_cuda_graph import device_call, make_graph_api
from fake_cuda_runtime import install_runtime

__all__ = ["FakeCuda", "install"]

_FAKES: dict[int, "FakeCuda"] = {}  # by id, for unpickling their generators


def _rebuild_rng(fake_id, state):
    """A fake's ``cupy.random`` generator at bit-generator ``state`` (unpickling)."""
    rng = _FAKES[fake_id].Rng(0)
    rng._rng.bit_generator.state = state
    return rng


class FakeCuda:
    """Builds fake ``cupy``, ``cupyx`` and ``array_api_compat.cupy`` modules over NumPy."""

    def __init__(self, n_devices: int, device_arrays: bool = False):
        import numpy as np
        import array_api_compat.numpy as np_xp

        self.n_devices = n_devices
        self.current = 0
        self.log: list[tuple[str, int]] = []
        self.pending: list = []  # recorded events not yet reached by a synchronize
        self.capturing = None  # the events of a stream capture in progress (device_arrays)
        fake = self

        class CUDARuntimeError(RuntimeError):
            pass

        class Device:
            def __init__(self, index=None):
                self.id = fake.current if index is None else index
                if not 0 <= self.id < max(fake.n_devices, 1):
                    raise CUDARuntimeError(f"cudaErrorInvalidDevice: {self.id}")

            def __enter__(self):
                self._previous, fake.current = fake.current, self.id
                return self

            def __exit__(self, *exc):
                fake.current = self._previous

            def synchronize(self):
                fake.log.append(("synchronize", self.id))
                for event in [e for e in fake.pending if e.device == self.id]:
                    event.done = True
                    fake.pending.remove(event)

        class Event:
            """``cupy.cuda.Event``: a timestamp taken on its device's queue."""

            def __init__(self, block=False, disable_timing=False, interprocess=False):
                self.device = fake.current
                self.timing = not disable_timing
                self.time = None
                self.done = False

            def record(self, stream=None):
                if fake.current != self.device:
                    raise CUDARuntimeError(
                        "cudaErrorInvalidResourceHandle: event of device "
                        f"{self.device} recorded on device {fake.current}")
                fake.log.append(("event.record", fake.current))
                self.time, self.done = time.perf_counter(), False
                fake.pending.append(self)

            def synchronize(self):
                fake.log.append(("event.synchronize", self.device))
                if self in fake.pending:
                    fake.pending.remove(self)
                self.done = True

        def get_elapsed_time(start, end):
            """Milliseconds between two recorded, completed events."""
            for event in (start, end):
                if event.time is None or not event.timing:
                    raise CUDARuntimeError("cudaErrorInvalidResourceHandle: invalid resource handle")
                if not event.done:
                    raise CUDARuntimeError("cudaErrorNotReady: device not ready")
            return (end.time - start.time) * 1e3

        def get_device_count():
            if fake.n_devices == 0:
                raise CUDARuntimeError("cudaErrorNoDevice: no CUDA-capable device is detected")
            return fake.n_devices

        def logged(name, fn):
            if device_arrays:
                return device_call(fake, name, fn)

            def call(*args, **kwargs):
                fake.log.append((name, fake.current))
                return fn(*args, **kwargs)
            return call

        class Rng:
            def __init__(self, seed):
                fake.log.append(("default_rng", fake.current))
                self._rng = np.random.default_rng(seed)

            def __reduce__(self):
                # picklable (``Generator.get_state``) although local: rebuilt by the fake
                return _rebuild_rng, (id(fake), self._rng.bit_generator.state)

            def __getattr__(self, name):  # standard_normal, random, integers
                if name.startswith("_"):  # copy's probes (__deepcopy__...), _rng unset
                    raise AttributeError(name)
                draw = getattr(self._rng, name)
                if not device_arrays:
                    return logged(f"rng.{name}", draw)
                rng = self._rng

                def draw_unless_capturing(*args, **kwargs):
                    # a capture records the draw (a launch makes it): the state stays put
                    saved = rng.bit_generator.state if fake.capturing is not None else None
                    try:
                        return draw(*args, **kwargs)
                    finally:
                        if saved is not None:
                            rng.bit_generator.state = saved
                return logged(f"rng.{name}", draw_unless_capturing)

        cupy = types.ModuleType("cupy")
        cupy.ndarray = np.ndarray
        cupy.float32, cupy.float64, cupy.int64 = np.float32, np.float64, np.int64
        cupy.asarray = logged("asarray", np.asarray)
        cupy.asnumpy = logged("asnumpy", self._asnumpy(np))
        cupy.from_dlpack = logged("from_dlpack", np.from_dlpack)
        cupy.argsort = np.argsort
        cupy.cuda = types.ModuleType("cupy.cuda")
        cupy.cuda.Device = Device
        cupy.cuda.Event = Event
        cupy.cuda.get_elapsed_time = get_elapsed_time
        cupy.cuda.runtime = types.ModuleType("cupy.cuda.runtime")
        cupy.cuda.runtime.getDeviceCount = get_device_count
        cupy.cuda.runtime.CUDARuntimeError = CUDARuntimeError
        self.CUDARuntimeError, self.Event = CUDARuntimeError, Event
        if device_arrays:
            for name, value in make_graph_api(self).items():
                setattr(cupy.cuda, name, value)
            # the device's arrays are all DeviceArrays: ``type(a) is cupy.ndarray`` holds for
            # them as for real CuPy's (else every recording would coerce, i.e. copy, them)
            from fake_cuda_graph import DeviceArray

            cupy.ndarray = DeviceArray
        install_runtime(self, cupy, device_arrays)
        cupy.random = types.ModuleType("cupy.random")
        cupy.random.default_rng = Rng
        self.Rng = Rng
        _FAKES[id(self)] = self

        cupyx = types.ModuleType("cupyx")
        cupyx.scatter_add = logged("scatter_add", np.add.at)
        cupyx.scipy = types.ModuleType("cupyx.scipy")
        cupyx.scipy.special = self._special(np)

        namespace = types.ModuleType("array_api_compat.cupy")

        def namespace_getattr(name):
            value = getattr(np_xp, name)
            if callable(value) and not isinstance(value, type):
                value = logged(f"xp.{name}", value)
            # a real module's functions are the same objects at every access (the compile
            # capture plan recognises ``xp.full``/``xp.asarray`` by identity)
            setattr(namespace, name, value)
            return value

        namespace.__getattr__ = namespace_getattr
        self.modules = {"cupy": cupy, "cupy.cuda": cupy.cuda,
                        "cupy.cuda.runtime": cupy.cuda.runtime, "cupy.random": cupy.random,
                        "cupyx": cupyx, "cupyx.scipy": cupyx.scipy,
                        "cupyx.scipy.special": cupyx.scipy.special,
                        "array_api_compat.cupy": namespace}

    def _asnumpy(self, np):
        """``cupy.asnumpy``: a host copy (refused while a stream captures, as a sync copy)."""
        def asnumpy(array):
            if self.capturing is not None:
                raise self.CUDARuntimeError("cudaErrorStreamCaptureUnsupported: operation "
                                            "not permitted when stream is capturing")
            return np.asarray(array)
        return asnumpy

    def _special(self, np):
        """``cupyx.scipy.special``: SciPy's functions, each call logged (SciPy imported lazily)."""
        fake = self
        special = types.ModuleType("cupyx.scipy.special")

        def scipy_special():
            import scipy.special

            return scipy.special

        def polygamma(n, x):
            # cupyx.scipy.special.polygamma evaluates cupy.where(n == 0, digamma(x), ...),
            # and CuPy 14's where calls .astype on the condition: with a Python int n that
            # is a Python bool, and fails exactly so.
            (n == 0).astype(bool)
            fake.log.append(("special.polygamma", fake.current))
            return scipy_special().polygamma(n, x)

        def special_getattr(name):
            fn = getattr(scipy_special(), name)  # AttributeError for names SciPy lacks
            return lambda *args: (fake.log.append((f"special.{name}", fake.current)),
                                  fn(*args))[1]

        special.polygamma = polygamma
        special.__getattr__ = special_getattr
        return special

    def devices_for(self, name):
        """The devices that were current for each logged call of ``name``."""
        return {dev for call, dev in self.log if call == name}


def install(n_devices: int = 1) -> FakeCuda:
    """Put a ``FakeCuda(n_devices)`` in ``sys.modules`` (before arraygrad's cupy probe runs)."""
    import array_api_compat

    fake = FakeCuda(n_devices)
    sys.modules.update(fake.modules)
    array_api_compat.cupy = fake.modules["array_api_compat.cupy"]
    return fake
