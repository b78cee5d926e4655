"""The ``Backend`` contract: what the core needs from an array library.

A backend wraps one array library that speaks the Python Array API standard.
The core does every array computation through ``backend.xp``; the few things
the standard lacks are the small methods below. Required members are
abstract; optional ones have a portable default written against ``xp``.

A minimal backend (see docs/writing-a-backend.md)::

    class MyBackend(Backend):
        name = "mine"
        device_type = "cpu"
        def is_available(self): return Availability(True)
        @property
        def xp(self): return my_namespace
        def make_generator(self, seed): ...
        def scatter_add(self, target, key, values): ...
        def to_host(self, array): ...
"""

from __future__ import annotations

import abc
import functools
from typing import Any, Callable, NamedTuple, Sequence

__all__ = ["At", "Availability", "Backend", "DeviceEvent", "Generator", "Memory"]


class Memory(NamedTuple):
    """Where an array's elements live (``Backend.memory``): what ``Tensor.data_ptr()`` and
    ``untyped_storage()`` report."""

    data_ptr: int
    """The address of the array's first element."""
    base_ptr: int
    """The address of the allocation holding it (PyTorch's storage)."""
    nbytes: int
    """The allocation's size in bytes."""
    shared: bool
    """Whether the allocation is memory shared between processes."""
    owner: Any
    """The array whose memory is the whole allocation (a storage keeps it alive)."""


class Availability:
    """Whether a backend can be used here, and why not. Truthy when usable."""

    __slots__ = ("ok", "reason")

    def __init__(self, ok: bool, reason: str = "") -> None:
        self.ok = bool(ok)
        self.reason = reason

    def __bool__(self) -> bool:
        return self.ok

    def __repr__(self) -> str:
        return f"Availability(ok={self.ok}, reason={self.reason!r})"


class Generator(abc.ABC):
    """A seeded random source producing native arrays of one backend."""

    @abc.abstractmethod
    def normal(self, shape: tuple[int, ...], dtype: Any) -> Any:
        """Standard normal samples of the given native dtype."""

    @abc.abstractmethod
    def uniform(self, shape: tuple[int, ...], dtype: Any) -> Any:
        """Uniform samples in [0, 1) of the given native dtype."""

    @abc.abstractmethod
    def integers(self, low: int, high: int, shape: tuple[int, ...], dtype: Any) -> Any:
        """Uniform integers in [low, high) of the given native dtype."""

    @abc.abstractmethod
    def permutation(self, n: int) -> Any:
        """A random permutation of ``range(n)`` as a native int64 array."""

    def state(self) -> Any:
        """This generator's position as JSON-safe data (dicts, lists, str, int, float, bool,
        None), which ``set_state`` restores: ``arraygrad.Generator.get_state`` saves it, and a
        file may carry it to another process. None (the default): the generator cannot say,
        and states stay valid only in this process."""
        return None

    def set_state(self, state: Any) -> None:
        """Go to the position ``state()`` described; TypeError/ValueError for data that is not
        such a description (it may come from a file: check it, never evaluate it)."""
        raise ValueError(f"{type(self).__name__} cannot restore a serialised state")

    def copy(self) -> "Generator":
        """An independent generator at the same point of the stream (``Generator``'s
        snapshots: checkpointing, ``get_state``, a recording undone). The default is a
        deep copy; a backend may make it cheaper (a snapshot is seldom restored)."""
        import copy

        return copy.deepcopy(self)


class DeviceEvent(abc.ABC):
    """A marker in a device's queue of work, for timing it (``Backend.device_event``).

    The profiler records one before and one after each op it times; once the
    device is synchronized, ``start.elapsed_ms(end)`` is the device time between.
    """

    @abc.abstractmethod
    def record(self) -> None:
        """Put the marker on the device's queue, behind the work queued so far (no waiting)."""

    @abc.abstractmethod
    def elapsed_ms(self, end: "DeviceEvent") -> float:
        """Device milliseconds from this marker to ``end``; both recorded and reached
        (call ``Backend.synchronize()`` first)."""


class Backend(abc.ABC):
    """One array library on one device (``cuda:1`` has its own instance).

    Attributes set by subclasses: ``name`` (the registry name, ``"numpy"``),
    ``device_type`` (``"cpu"``, ``"cuda"``, ...) and, for a device with an
    index, ``index``. ``priority`` breaks ties when several backends serve the
    same device type (the highest becomes that type's default).
    """

    name: str = ""
    device_type: str = "cpu"
    index: int | None = None
    priority: int = 0

    # -- required -----------------------------------------------------------
    @abc.abstractmethod
    def is_available(self) -> Availability:
        """Whether this backend works on this machine, with a reason if not."""

    @property
    @abc.abstractmethod
    def xp(self) -> Any:
        """The Array API namespace all array work goes through."""

    @abc.abstractmethod
    def make_generator(self, seed: int) -> Generator:
        """A random generator seeded with ``seed`` producing this backend's arrays."""

    @abc.abstractmethod
    def scatter_add(self, target: Any, key: Any, values: Any) -> Any:
        """Add ``values`` into ``target[key]``, accumulating repeated indices.

        Used by the backward of indexing. Returns the result, which the core always uses:
        ``target`` itself, written in place, or a new array where ``mutable_arrays`` is False.
        """

    @abc.abstractmethod
    def to_host(self, array: Any) -> Any:
        """A host (NumPy-compatible) copy or view of ``array``."""

    # -- optional, with portable defaults ----------------------------------
    array_type: type | None = None
    """The library's array class; results of another class go through ``coerce``."""

    holds_data: bool = True
    """False for a backend whose arrays are shapes and dtypes without elements (the ``meta``
    device): the core then skips its checks of values (index ranges, probabilities), as
    PyTorch's meta kernels do, and tensors print without values."""

    scalar_operands: Any = None
    """Optional ``ScalarOperands`` cache: Python scalars in ``+ - * /`` become cached 0-d
    arrays of the other operand's dtype (worth it when the library converts scalars
    slowly, as NumPy does); None passes scalars as they are."""

    mutable_arrays: bool = True
    """False for a library whose arrays cannot be written into (JAX): every write the core
    makes then goes through ``write``, which returns a new array, and the tensor holding the
    old one is rebound to it (docs/writing-a-backend.md, "Immutable and lazy arrays")."""

    lazy: bool = False
    """True for a library that builds a task graph instead of computing (Dask): the core then
    calls ``materialize`` at the points a training loop would otherwise let the graph grow
    (after ``optimizer.step``, at ``.item()``), and masks select with ``where``, never with
    integer positions (their count is unknown until computed)."""

    def write(self, array: Any, key: Any, values: Any, how: str = "set") -> Any:
        """``array[key] = values`` (``how="set"``), ``+=`` (``"add"``) or ``*=``
        (``"multiply"``); returns the result. ``key`` is a basic index (integers, slices,
        ellipsis; no ``None``). A mutable backend writes into ``array`` and returns it (the
        default, as fast as a bare ``__setitem__``); an immutable one returns a new array and
        leaves ``array`` as it was. ``at(array, key).set(values)`` is the same call."""
        if how == "set":
            array[key] = values
        elif how == "add":
            array[key] += values
        elif how == "multiply":
            array[key] *= values
        else:
            raise ValueError(f"write: unknown update {how!r} (set, add or multiply)")
        return array

    def at(self, array: Any, key: Any = Ellipsis) -> "At":
        """``at(x, key).set(v)`` / ``.add(v)`` / ``.multiply(v)``: ``write`` in the spirit of
        array-api-extra's ``xpx.at``, for code that reads better that way."""
        return At(self, array, key)

    def materialize(self, arrays: Sequence[Any]) -> list[Any]:
        """Compute ``arrays`` now and return them computed (a list, same order), so the task
        graphs of later steps start from values, not from every step before. The default
        returns them as they are: an eager library has nothing to do."""
        return list(arrays)

    def coerce(self, value: Any) -> Any:
        """Turn what an xp function returned (e.g. a NumPy scalar) into an array."""
        return self.xp.asarray(value)

    def from_host(self, data: Any, dtype: Any = None) -> Any:
        """An array on this backend's device from host data (lists, scalars, buffers)."""
        if dtype is None:
            return self.xp.asarray(data)
        return self.xp.asarray(data, dtype=dtype)

    def is_exclusive(self, array: Any) -> bool:
        """Whether ``array`` owns its memory and nothing but its one tensor refers to it.

        When True, a gradient can become a leaf's ``.grad`` without a copy. The
        safe default is False (always copy); CPython backends can check refcounts.
        """
        return False

    def from_bytes(self, data: bytes, native_dtype: Any, shape: tuple[int, ...]) -> Any:
        """An array of ``shape``/``native_dtype`` from raw little-endian bytes (``arraygrad.load``).

        The portable default goes through Python values; backends override it with
        a zero-parse path (NumPy: ``frombuffer``).
        """
        import math

        from arraygrad import dtypes

        values = dtypes.unpack(data, self.arraygrad_dtype(native_dtype), math.prod(shape))
        return self.xp.reshape(self.from_host(values, native_dtype), tuple(shape))

    def from_dlpack(self, obj: Any) -> Any:
        """An array from any object with ``__dlpack__``."""
        return self.xp.from_dlpack(obj)

    def memory(self, array: Any) -> Memory | None:
        """Where ``array``'s elements are in memory, or None (the default): the library gives
        no addresses, and ``Tensor.data_ptr()``/``untyped_storage()`` raise RuntimeError."""
        return None

    def from_buffer(self, buffer: Any, native_dtype: Any, count: int, offset: int) -> Any:
        """A 1-d array of ``count`` elements sharing the memory of a Python buffer (``bytes``,
        ``mmap``...) from byte ``offset`` (``frombuffer``), or None (the default): the
        library cannot."""
        return None

    def synchronize(self) -> None:
        """Wait until queued device work is done (a no-op on synchronous devices)."""

    def device_count(self) -> int:
        """How many devices of ``device_type`` this backend can address."""
        return 1

    def device_event(self) -> DeviceEvent | None:
        """A new, unrecorded timing event on this instance's device, or None (the default):
        this backend cannot time device work, and the profiler says so in its table."""
        return None

    def runtime(self) -> Any:
        """This instance's device runtime (a ``backends.device_runtime.DeviceRuntime``: memory
        pool, properties, streams, events), or None (the default): the device has no runtime
        services, and ``arraygrad.cuda``'s memory and stream functions say so."""
        return None

    def for_device(self, index: int | None) -> "Backend":
        """The instance of this backend bound to device ``index``."""
        if index not in (None, 0):
            raise RuntimeError(
                f"{self.name}: device index {index} out of range ({self.device_count()} device(s))")
        return self

    def kernel(self, op_name: str) -> Callable[..., Any] | None:
        """An optional fast kernel for ``op_name`` on this backend, or None."""
        return None

    def capture(self, replay: Callable[[], Any]) -> Callable[[], Any] | None:
        """A faster equivalent of ``replay`` (a CUDA graph), or None (the default): this
        backend cannot capture, and ``arraygrad.compile`` calls ``replay`` itself.

        ``replay`` (from ``arraygrad.compile``) makes only this backend's calls, on arrays
        that are the same objects at every call: it reads its inputs from them and updates
        them in place. It reads nothing on the host and changes no Python state, since a
        capture may run its Python without running its device work. The callable returned
        does the work of one ``replay()`` per call and returns what ``replay`` returned:
        its first call runs ``replay`` itself (and may capture after); later calls return
        the captured run's arrays, the same objects each time, rewritten by each call.
        ``arraygrad.compile`` may capture one program as two replays, launched in order with
        host work between them (``compiler.capture_plan``); each is captured on its own.
        """
        return None

    @property
    def device(self) -> Any:
        """The ``arraygrad.device`` this instance computes on.

        Made once and kept: every ``Tensor.device`` and every random factory reads it, and
        parsing a new one costs ~1.8 us. It is remade if its fields no longer match the
        backend's (a subclass that sets them late)."""
        made = self.__dict__.get("_device_made")
        if made is None or made.type != self.device_type or made.index != self.index:
            from arraygrad.device import device
            made = self.__dict__["_device_made"] = device(self.device_type, self.index)
        return made

    def native_dtype(self, dtype: Any) -> Any:
        """This backend's dtype for an ``arraygrad.dtype``."""
        table = self.__dict__.get("_to_native")
        if table is None:
            table = self._build_dtype_tables()[0]
        try:
            return table[dtype]
        except KeyError:
            raise TypeError(f"backend {self.name!r} does not support dtype {dtype} "
                            f"(it has {sorted(d.name for d in table)})") from None

    def arraygrad_dtype(self, native: Any) -> Any:
        """The ``arraygrad.dtype`` of a native dtype."""
        table = self.__dict__.get("_from_native")
        if table is None:
            table = self._build_dtype_tables()[1]
        try:
            return table[native]
        except KeyError:
            raise TypeError(f"{self.name}: unsupported dtype {native!r}") from None

    def supported_dtypes(self) -> Sequence[Any]:
        """The ``arraygrad`` dtypes this backend provides: by default, those its namespace has an
        attribute for (``xp.uint8``...). A backend lacking some declares them to the
        conformance suite (``capabilities["lacks"]``, docs/writing-a-backend.md)."""
        from arraygrad import dtypes
        return [d for d in dtypes.ALL_DTYPES if hasattr(self.xp, d.name)]

    def _build_dtype_tables(self) -> tuple[Any, ...]:
        xp = self.xp
        to_native: dict[Any, Any] = {}
        from_native: dict[Any, Any] = {}
        for ag_dtype in self.supported_dtypes():
            native = getattr(xp, ag_dtype.name)
            made = xp.empty((0,), dtype=native).dtype
            if made in from_native or made != native:
                # an array of this dtype comes back as another (JAX without 64-bit mode makes
                # float64 requests float32): offering it would make the table lie, and the
                # other dtype's arrays would report themselves as this one
                continue
            to_native[ag_dtype] = native
            from_native[native] = ag_dtype
            # Arrays may report a dtype object distinct from the namespace's
            # attribute (NumPy: np.dtype('float32') vs np.float32).
            from_native[made] = ag_dtype
        self._to_native, self._from_native = to_native, from_native
        self._floating_natives = frozenset(n for n, d in from_native.items() if d.is_floating_point)
        self._complex_natives = frozenset(n for n, d in from_native.items() if d.is_complex)
        return to_native, from_native

    @functools.cached_property
    def reduced_floating_natives(self) -> frozenset[Any]:
        """The native dtypes of float16 and bfloat16 (those this backend has): PyTorch computes
        them in float32 (its ``opmath`` type), which ``mul``/``div`` by a number follow."""
        from arraygrad import dtypes

        from_native = self.__dict__.get("_from_native") or self._build_dtype_tables()[1]
        return frozenset(n for n, d in from_native.items()
                         if d is dtypes.float16 or d is dtypes.bfloat16)

    @functools.cached_property
    def wide_floating_natives(self) -> frozenset[Any]:
        """The floating native dtypes computed as they are (float32, float64): every floating
        one but ``reduced_floating_natives``."""
        return self.floating_natives - self.reduced_floating_natives

    @functools.cached_property
    def weak_scalar_natives(self) -> frozenset[Any]:
        """The floating native dtypes next to which a raw Python number keeps the array's
        dtype (the standard's rule): all but those the ``scalar_operands`` cache lists as
        widening (NumPy's bfloat16), whose numbers go as 0-d arrays."""
        widening: frozenset[Any] = getattr(self.scalar_operands, "widening", frozenset())
        return frozenset(n for n in self.floating_natives if n not in widening)

    @functools.cached_property
    def int64_natives(self) -> frozenset[Any]:
        """The native dtype objects of int64 (indices, counts, positions: ``i + 1`` of an
        int64 tensor keeps int64 with no promotion to compute)."""
        from arraygrad import dtypes

        from_native = self.__dict__.get("_from_native") or self._build_dtype_tables()[1]
        return frozenset(n for n, d in from_native.items() if d is dtypes.int64)

    @functools.cached_property
    def floating_natives(self) -> frozenset[Any]:
        """The native dtypes that are floating point (cached: a cheap test on hot paths)."""
        if "_floating_natives" not in self.__dict__:
            self._build_dtype_tables()
        return self._floating_natives

    @functools.cached_property
    def complex_natives(self) -> frozenset[Any]:
        """The native dtypes that are complex (those of complex64 and complex128 this backend
        has)."""
        if "_complex_natives" not in self.__dict__:
            self._build_dtype_tables()
        return self._complex_natives

    @functools.cached_property
    def differentiable_natives(self) -> frozenset[Any]:
        """The native dtypes a gradient flows through: the floating and the complex ones (an
        integer or bool result has no gradient)."""
        return self.floating_natives | self.complex_natives

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r} on {self.device}>"


class At:
    """``backend.at(array, key)``: the pending write of one index, applied by a method."""

    __slots__ = ("_backend", "_array", "_key")

    def __init__(self, backend: Backend, array: Any, key: Any) -> None:
        self._backend, self._array, self._key = backend, array, key

    def set(self, values: Any) -> Any:
        """``array[key] = values``; the resulting array (``array`` itself where mutable)."""
        return self._backend.write(self._array, self._key, values, "set")

    def add(self, values: Any) -> Any:
        """``array[key] += values``; the resulting array."""
        return self._backend.write(self._array, self._key, values, "add")

    def multiply(self, values: Any) -> Any:
        """``array[key] *= values``; the resulting array."""
        return self._backend.write(self._array, self._key, values, "multiply")
