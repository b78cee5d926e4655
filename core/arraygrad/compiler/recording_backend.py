"""The recording side of a backend: its namespace, methods, scalar cache and generator.

While a call is recorded, every touched tensor's ``_backend`` is a ``RecordingBackend``
around its real backend: ``backend.xp.fn(...)`` and the backend's own methods
(``scatter_add``, ``coerce``, ``from_host``...) run on the real arrays and are written
down like the operators of a ``TracedArray``. Array creation without traced inputs
(``xp.zeros``) is recorded too: a replay makes a fresh array each time, as eager does.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any, Callable

from arraygrad.compiler.scalars import LiveScalar
from arraygrad.compiler.traced import (
    DATA_DEPENDENT, EFFECT_FUNCTIONS, Recording, TracedArray, constant, current, graph_break,
    namespace_function, record_call,
)

__all__ = ["RecordingBackend", "RecordingNamespace", "RecordingGenerator", "recording_backend",
           "recorded_backend", "recorded_generator"]

# backend methods that hand values to the host: a graph break when given a traced array
_HOST_METHODS = {"to_host": "a tensor's values are copied to the host (`.item()`, `float()`, "
                            "`bool()`, `.tolist()`, `.numpy()`, printing)",
                 "synchronize": None, "device_event": None}
# backend methods that write their first argument
_EFFECT_METHODS = frozenset({"scatter_add"})
# backend methods mapping dtypes to dtypes (on most ops' paths): nothing to record
_DTYPE_METHODS = frozenset({"native_dtype", "arraygrad_dtype"})


class RecordingNamespace:
    """``xp`` seen through the recording in progress: functions record, everything else
    (dtypes, constants, ``finfo``) is the real namespace's own object.

    One per real namespace (``recording_namespace``), shared by every recording: its
    functions record into the recording in progress (``current``) and run as they are when
    none is, so what one looks up serves every later recording too."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._real, name)
        if isinstance(value, types.ModuleType):
            wrapped: Any = recording_namespace(value)
        elif callable(value) and not isinstance(value, type):
            wrapped = _recorded_function(self._real, name)
        else:
            return value  # (read again each time: the real namespace's value now)
        setattr(self, name, wrapped)  # looked up once
        return wrapped


_NAMESPACES: dict[int, tuple[Any, RecordingNamespace]] = {}


def recording_namespace(real: Any) -> RecordingNamespace:
    """The one ``RecordingNamespace`` of the real namespace ``real`` when it is a module (the
    backends' namespaces, which live as long as the process); a new one for another object (a
    vmap level's namespace, made per call: kept, it would never be freed)."""
    if not isinstance(real, types.ModuleType):
        return RecordingNamespace(real)
    found = _NAMESPACES.get(id(real))
    if found is None or found[0] is not real:
        found = _NAMESPACES[id(real)] = (real, RecordingNamespace(real))
    return found[1]


def _recorded_function(namespace: Any, name: str) -> Callable[..., Any]:
    pure = name not in EFFECT_FUNCTIONS
    if name not in DATA_DEPENDENT:
        return namespace_function(namespace, name, pure)

    def call(*args: Any, **kwargs: Any) -> Any:
        fn = getattr(namespace, name)  # at each call: a namespace patched since is seen
        rec = current.rec
        if rec is not None and not constant(rec, args):
            # (of shapes and constants alone: no break)
            graph_break(f"`{name}` has a data-dependent shape")
        return record_call(fn, args, kwargs, pure=pure, rec=rec, always=True)

    call.__name__ = name
    return call


class RecordingScalars:
    """The backend's scalar-operand cache as the recording sees it: a live scalar becomes a
    0-d array made at replay from its getter's value (the cache would bake one value)."""

    def __init__(self, real: Any, backend: "RecordingBackend") -> None:
        self._real = real
        self._backend = backend
        self.widening = real.widening  # (ScalarOperands') dtypes a raw number would widen

    def __getitem__(self, key: tuple[Any, Any]) -> Any:
        value, native = key
        if value.__class__ is LiveScalar:
            return self._backend.xp.asarray(value, dtype=native)
        return self._real[key]

    def zero(self, native: Any) -> Any:
        """The real cache's ``+0.0`` (a constant operand, never written)."""
        return self._real.zero(native)


class RecordingGenerator:
    """A native generator whose draws are instructions: a replay draws fresh numbers from
    the generator in use then, in eager's order."""

    def __init__(self, backend: Any, generator: Any, rec: Recording) -> None:
        self._backend = backend
        self._generator = generator
        self._rec = rec

    def __getattr__(self, name: str) -> Any:
        backend, generator = self._backend, self._generator
        if not callable(getattr(generator.native(backend), name, None)):
            # only the native generator's draw methods are recorded; a probe for another
            # attribute (``batched_backend``: is this a vmap level's generator?) finds none
            raise AttributeError(name)

        def draw(*args: Any) -> Any:
            return getattr(generator.native(backend), name)(*args)

        draw.__name__ = f"draw_{name}"

        def call(*args: Any, **kwargs: Any) -> Any:
            return record_call(draw, args, kwargs, pure=False, rec=self._rec, always=True)

        return call


class RecordingBackend:
    """A real backend seen through a recording (see the module docstring). Attributes that
    are not methods are the real backend's; ``array_type`` is ``TracedArray`` (a traced
    array is this backend's array) and ``is_exclusive`` is False (a replay cannot know)."""

    array_type = TracedArray

    def __init__(self, real: Any, rec: Recording) -> None:
        self._real = real
        self._rec = rec
        self.xp = recording_namespace(real.xp)
        # read on most ops' paths: an attribute, not a ``__getattr__`` round (a fixed set)
        self.floating_natives = real.floating_natives
        self.reduced_floating_natives = real.reduced_floating_natives
        self.wide_floating_natives = real.wide_floating_natives
        self.complex_natives = real.complex_natives
        self.differentiable_natives = real.differentiable_natives
        self.weak_scalar_natives = real.weak_scalar_natives
        cache = real.scalar_operands
        self.scalar_operands = None if cache is None else RecordingScalars(cache, self)

    def is_exclusive(self, array: Any) -> bool:
        """The real backend's answer for the real array, when the traced array itself is held
        only by its tensor (as eager's test: this call's argument and getrefcount's are the
        other two references). A buffer taken over at record time had no other reference, so
        no later instruction can read it: the replay may take it over too."""
        if array.__class__ is not TracedArray or sys.getrefcount(array) > 3:
            return False
        return bool(self._real.is_exclusive(array._a))

    def generator(self, generator: Any) -> RecordingGenerator:
        """The recording generator drawing from ``generator`` (an ``arraygrad.Generator``)."""
        return RecordingGenerator(self._real, generator, self._rec)

    def __eq__(self, other: object) -> bool:
        return other is self or other is self._real

    def __hash__(self) -> int:
        return hash(self._real)

    def __repr__(self) -> str:
        return f"RecordingBackend({self._real!r})"

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._real, name)
        if not callable(value) or isinstance(value, type) or name.startswith("__"):
            return value
        if name in _DTYPE_METHODS:  # no array in or out: the real method itself
            setattr(self, name, value)
            return value
        if name == "write" and self._real.mutable_arrays:
            # a mutable backend's write is ``array[key] = values`` (the contract's): made on
            # the traced arrays, it is recorded as the effect it is (a replay makes it again,
            # the exporter translates it), not as a call returning an array
            write = functools.partial(_contract_write, self)
            setattr(self, name, write)
            return write
        rec = self._rec
        reason = _HOST_METHODS.get(name, "")
        pure = name not in _EFFECT_METHODS

        def method(*args: Any, **kwargs: Any) -> Any:
            if reason and any(a.__class__ is TracedArray for a in args):
                graph_break(reason)
            if reason is None:
                return value(*args, **kwargs)
            out = record_call(value, args, kwargs, pure=pure, rec=rec,
                              always=name in ("from_host", "from_bytes", "from_dlpack"))
            if name == "kernel" and out is not None:  # a backend kernel: record its calls
                kernel = out
                return lambda *a, **k: record_call(kernel, a, k, rec=rec, always=True)
            return out

        method.__name__ = name
        setattr(self, name, method)  # a method is looked up once per recording
        return method


def _contract_write(backend: Any, array: Any, key: Any, values: Any, how: str = "set") -> Any:
    """``Backend.write`` as the contract defines it for mutable arrays."""
    from arraygrad.backends.contract import Backend

    return Backend.write(backend, array, key, values, how)


def recording_backend(real: Any, rec: Recording, cache: dict[int, RecordingBackend]) -> RecordingBackend:
    """The one ``RecordingBackend`` of ``real`` in this recording."""
    found = cache.get(id(real))
    if found is None:
        found = cache[id(real)] = RecordingBackend(real, rec)
    return found


# -- the recording in progress as array factories and generators reach it -------------
# (``creation._backend`` and ``random.generator_for`` call these behind one flag test; this
# module imports nothing above the tensor layer, so they may)


def recorded_backend(backend: Any) -> Any:
    """``backend`` as the recording in progress sees it (itself when none is)."""
    rec = current.rec
    if rec is None or backend.__class__ is RecordingBackend:
        return backend
    return rec.wrap_backend(backend)


def recorded_generator(backend: Any, generator: Any) -> Any:
    """A generator whose draws from ``generator`` on ``backend`` are recorded."""
    rec = current.rec
    real = backend._real if backend.__class__ is RecordingBackend else backend
    if rec is None:  # pragma: no cover - the flag is only on while a recording is current
        return generator.native(real)
    return RecordingGenerator(real, generator, rec)

