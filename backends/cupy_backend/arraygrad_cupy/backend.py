"""The CuPy backend: CUDA arrays through ``array_api_compat.cupy``, plus CuPy extras.

Nothing here imports CuPy at module import time. Plugin discovery imports this
module on every machine, including ones without CuPy or without a GPU, and it
must stay cheap and must never fail there; CuPy is imported on the first
availability probe or the first real use.

One ``CupyBackend`` instance serves one CUDA device: the registered instance
is device 0 and ``for_device(i)`` hands out (and caches) the instance bound to
device ``i``. Everything that allocates runs under ``cupy.cuda.Device(index)``
so that ``cuda:1`` tensors really live on GPU 1 whatever the current device is.
"""

from __future__ import annotations

import functools
import threading
import types
from typing import Any, NamedTuple

from arraygrad.backends import Availability, Backend, DeviceEvent, Generator
from arraygrad.backends.strided import strided_kernels

__all__ = ["CupyBackend", "CupyEvent", "CupyGenerator"]

NOT_INSTALLED = "cupy is not installed"
NO_DEVICE = "no CUDA device"
_KERNELS: dict[str, Any] | None = None  # the strided-view kernels, made at first use


class _Probe(NamedTuple):
    """What the one-time environment check found."""

    importable: bool
    ok: bool
    reason: str
    count: int


_probe_lock = threading.Lock()
_probe_result: _Probe | None = None
_family_lock = threading.Lock()  # guards creating per-device instances


def _run_probe() -> _Probe:
    try:
        import cupy
    except ModuleNotFoundError as exc:
        if (exc.name or "cupy").partition(".")[0] == "cupy":
            return _Probe(False, False, NOT_INSTALLED, 0)
        # cupy itself is there but one of its dependencies is not.
        return _Probe(False, False, f"{NOT_INSTALLED} correctly ({type(exc).__name__}: {exc})", 0)
    except Exception as exc:  # e.g. a cupy wheel built for another CUDA major version
        return _Probe(False, False, f"{NOT_INSTALLED} correctly ({type(exc).__name__}: {exc})", 0)
    try:
        count = int(cupy.cuda.runtime.getDeviceCount())
    except Exception as exc:
        # cupy raises CUDARuntimeError (cudaErrorNoDevice, cudaErrorInsufficientDriver...)
        # when there is no usable GPU or driver; any other error means the same to us.
        return _Probe(True, False, f"{NO_DEVICE} ({type(exc).__name__}: {exc})", 0)
    if count < 1:
        return _Probe(True, False, NO_DEVICE, 0)
    return _Probe(True, True, "", count)


def _probe() -> _Probe:
    """The environment check, run once per process (importing cupy is slow)."""
    global _probe_result
    result = _probe_result
    if result is None:
        with _probe_lock:
            if _probe_result is None:
                _probe_result = _run_probe()
            result = _probe_result
    return result


def _reset_probe() -> None:
    """Forget the cached environment check (tests that fake cupy use this)."""
    global _probe_result
    with _probe_lock:
        _probe_result = None


def _cupy():
    import cupy

    return cupy


class _OnDevice:
    """An Array API namespace whose functions run under ``cupy.cuda.Device(index)``.

    CuPy allocates on, and refuses to compute across, the *current* device,
    while the core calls ``xp.zeros(...)`` / ``xp.add(a, b)`` without naming a
    device. Binding every function to the instance's device makes ``cuda:1``
    work no matter which device the caller made current.
    """

    def __init__(self, namespace: types.ModuleType, index: int, device_cls: Any):
        self._namespace = namespace
        self._index = index
        self._device_cls = device_cls

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._namespace, name)
        if isinstance(value, types.ModuleType):  # xp.linalg, xp.fft
            value = _OnDevice(value, self._index, self._device_cls)
        elif callable(value) and not isinstance(value, type):
            # dtypes (numpy scalar types) are callable classes: they pass through
            # untouched so dtype identity checks keep working.
            value = self._bind(value)
        # Cache on the instance: later lookups no longer reach __getattr__.
        setattr(self, name, value)
        return value

    def _bind(self, fn):
        device_cls, index = self._device_cls, self._index

        @functools.wraps(fn)
        def on_device(*args, **kwargs):
            with device_cls(index):
                return fn(*args, **kwargs)

        return on_device

    def __repr__(self) -> str:
        return f"<{self._namespace.__name__} on cuda:{self._index}>"


class CupyGenerator(Generator):
    """Seeded ``cupy.random.Generator`` (``default_rng``) living on one CUDA device."""

    def __init__(self, seed: int, index: int = 0):
        cp = _cupy()
        self._cp = cp
        self._index = index
        # The bit generator's state is allocated on the current device, so it
        # must be created (and later used) under this generator's device.
        with cp.cuda.Device(index):
            self._rng = cp.random.default_rng(seed)

    def __deepcopy__(self, memo):
        """A copy drawing the same numbers from here on (``Generator._snapshot``: checkpoint
        replays, ``arraygrad.compile``'s undo); the cupy module itself is shared."""
        import copy

        clone = object.__new__(type(self))
        clone._cp, clone._index = self._cp, self._index
        with self._cp.cuda.Device(self._index):
            clone._rng = copy.deepcopy(self._rng, memo)
        return clone

    def __getstate__(self):
        """Pickled without the ``cupy`` module (``Generator.get_state``: the CUDA generators'
        ``get_rng_state``); it is imported again on unpickling."""
        return {"index": self._index, "rng": self._rng}

    def __setstate__(self, state):
        self._cp, self._index, self._rng = _cupy(), state["index"], state["rng"]

    def _floats(self, sample, shape, dtype):
        cp = self._cp
        with cp.cuda.Device(self._index):
            if dtype in (cp.float32, cp.float64):
                return sample(shape, dtype=dtype)
            # CuPy samples float32/float64 only; other dtypes (float16) are cast.
            return sample(shape, dtype=cp.float32).astype(dtype)

    def normal(self, shape, dtype):
        """Standard normal samples of ``dtype`` on this generator's device."""
        return self._floats(self._rng.standard_normal, shape, dtype)

    def uniform(self, shape, dtype):
        """Uniform ``[0, 1)`` samples of ``dtype`` on this generator's device."""
        return self._floats(self._rng.random, shape, dtype)

    def integers(self, low, high, shape, dtype):
        """Uniform integers in ``[low, high)`` of ``dtype`` on this generator's device."""
        with self._cp.cuda.Device(self._index):
            return self._rng.integers(low, high, size=shape, dtype=dtype)

    def permutation(self, n):
        """A random permutation of ``range(n)`` as an int64 array on this device."""
        cp = self._cp
        with cp.cuda.Device(self._index):
            permute = getattr(self._rng, "permutation", None)
            if permute is not None:
                return permute(n).astype(cp.int64)
            # cupy.random.Generator has no permutation(): the order that sorts
            # i.i.d. uniform keys is a uniformly random permutation.
            return cp.argsort(self._rng.random((n,))).astype(cp.int64)


class CupyEvent(DeviceEvent):
    """A ``cupy.cuda.Event`` (timing enabled) of one CUDA device, recorded on its current stream."""

    def __init__(self, index: int = 0):
        cp = _cupy()
        self._cp = cp
        self._index = index
        # CUDA records an event only on a stream of the device it was created on
        with cp.cuda.Device(index):
            self._event = cp.cuda.Event()

    def record(self) -> None:
        """Enqueue the event on this device's current stream."""
        with self._cp.cuda.Device(self._index):
            self._event.record()

    def elapsed_ms(self, end: "CupyEvent") -> float:
        """``cupy.cuda.get_elapsed_time``: device milliseconds to ``end`` (both completed)."""
        return float(self._cp.cuda.get_elapsed_time(self._event, end._event))


class CupyBackend(Backend):
    """CUDA arrays with CuPy; one instance per CUDA device (``cuda:0``, ``cuda:1``...)."""

    name = "cupy"
    device_type = "cuda"
    priority = 100

    def __init__(self, index: int = 0, *, _family: dict[int, "CupyBackend"] | None = None):
        self.index = index
        self._xp = None
        # Every instance of one registered backend shares this dict, so that
        # for_device(i) returns the same object whichever sibling is asked
        # (the core compares backends by identity).
        self._family = {index: self} if _family is None else _family

    # -- required -----------------------------------------------------------
    def is_available(self) -> Availability:
        """Usable when cupy imports and CUDA device ``index`` exists; never raises."""
        try:
            probe = _probe()
            if not probe.ok:
                return Availability(False, probe.reason)
            if self.index >= probe.count:
                return Availability(False, f"{NO_DEVICE} {self.index} ({probe.count} device(s))")
            return Availability(True)
        except Exception as exc:  # an availability check must never raise
            return Availability(False, f"cupy probe failed ({type(exc).__name__}: {exc})")

    @property
    def xp(self):
        """``array_api_compat.cupy``, bound to this instance's device when there are several."""
        xp = self._xp
        if xp is None:
            import array_api_compat.cupy as namespace

            # With one GPU the current device is always ours: skip the wrapper.
            if self.device_count() <= 1:
                xp = namespace
            else:
                xp = _OnDevice(namespace, self.index, _cupy().cuda.Device)
            self._xp = xp
        return xp

    def make_generator(self, seed: int) -> CupyGenerator:
        """A ``cupy.random.default_rng(seed)`` generator on this instance's device."""
        return CupyGenerator(seed, self.index)

    def scatter_add(self, target, key, values):
        """``target[key] += values`` accumulating repeated indices (``cupyx.scatter_add``)."""
        import cupyx

        with _cupy().cuda.Device(self.index):
            cupyx.scatter_add(target, key, values)
        return target

    def to_host(self, array):
        """A NumPy copy of ``array`` (``cupy.asnumpy``)."""
        cp = _cupy()
        with cp.cuda.Device(self.index):
            return cp.asnumpy(array)

    # -- optional -----------------------------------------------------------
    @property
    def array_type(self):
        """``cupy.ndarray``, or None while cupy cannot be imported."""
        if not _probe().importable:
            return None
        return _cupy().ndarray

    def coerce(self, value):
        """``value`` (e.g. a NumPy scalar from a reduction) as a cupy array on this device."""
        cp = _cupy()
        with cp.cuda.Device(self.index):
            return cp.asarray(value)

    def from_host(self, data, dtype=None):
        """A copy of host data (lists, scalars, NumPy arrays) on this device."""
        cp = _cupy()
        with cp.cuda.Device(self.index):
            return cp.asarray(data, dtype=dtype)

    def from_dlpack(self, obj):
        """An array sharing memory with ``obj`` through DLPack (``cupy.from_dlpack``)."""
        cp = _cupy()
        with cp.cuda.Device(self.index):
            return cp.from_dlpack(obj)

    def memory(self, array):
        """The device addresses: the allocation is the array at the end of the ``base``
        chain (cupy's views keep their owner there, as NumPy's)."""
        from arraygrad.backends.contract import Memory

        owner = array
        while isinstance(owner.base, _cupy().ndarray):
            owner = owner.base
        return Memory(array.data.ptr, owner.data.ptr, owner.nbytes, False, owner)

    def kernel(self, op_name):
        """Strided views (``as_strided``, ``Tensor.unfold``) sharing memory, as PyTorch's do."""
        global _KERNELS
        if _KERNELS is None:
            try:
                from cupy.lib.stride_tricks import as_strided
            except ImportError:  # a CuPy without it: the ops take their portable copies
                _KERNELS = {}
            else:
                _KERNELS = strided_kernels(
                    _cupy().ndarray, lambda a, shape, strides: as_strided(a, shape, strides))
        return _KERNELS.get(op_name)

    def synchronize(self) -> None:
        """Wait until all queued work on this instance's device has finished."""
        _cupy().cuda.Device(self.index).synchronize()

    def runtime(self):
        """CuPy's memory pool, device properties, streams and events for this instance's
        device (``arraygrad_cupy.runtime``), for ``arraygrad.cuda``."""
        runtime = self.__dict__.get("_runtime")
        if runtime is None:
            from arraygrad_cupy.runtime import CupyRuntime

            runtime = self._runtime = CupyRuntime(_cupy(), self.index)
        return runtime

    def device_event(self) -> CupyEvent:
        """A ``cupy.cuda.Event`` on this instance's device: the profiler's CUDA columns."""
        return CupyEvent(self.index)

    def capture(self, replay):
        """``replay`` as a CUDA graph (stream capture, then ``graph.launch()``): a
        ``CudaGraphReplay`` (see ``arraygrad_cupy.graphs``); None on ROCm/HIP, where CuPy
        has no stream capture."""
        cp = _cupy()
        if getattr(cp.cuda.runtime, "is_hip", False):
            return None
        from arraygrad_cupy.graphs import CudaGraphReplay

        return CudaGraphReplay(replay, self.index, cp)

    def device_count(self) -> int:
        """The number of visible CUDA devices (``cupy.cuda.runtime.getDeviceCount()``), 0 without one."""
        return _probe().count

    def for_device(self, index: int | None) -> "CupyBackend":
        """The cached instance bound to CUDA device ``index`` (``None`` means device 0)."""
        index = 0 if index is None else int(index)
        instance = self._family.get(index)
        if instance is not None:
            return instance
        count = self.device_count()
        if not 0 <= index < count:
            raise RuntimeError(
                f"{self.name}: CUDA device index {index} out of range ({count} device(s))")
        with _family_lock:
            instance = self._family.get(index)
            if instance is None:
                instance = type(self)(index, _family=self._family)
                self._family[index] = instance
        return instance
