"""CUDA stream capture and graphs for the fake ``cupy`` (``fake_cupy.FakeCuda(device_arrays=True)``).

Real stream capture does not run the work queued on a capturing stream: it records
kernels (their arguments, pointers and Python scalars, fixed at capture) into a
graph, and each ``graph.launch()`` runs them again on the same memory. The fake
does the same with NumPy:

* Every array the fake device makes is a ``DeviceArray`` (an ``ndarray`` subclass),
  so every operation on it reaches ``__array_ufunc__`` / ``__array_function__`` /
  ``__setitem__``, operators and in-place operators included.
* While a ``Stream`` captures, each such operation is appended to the capture as
  an event and is not applied: a ufunc with ``out=`` (``a += b``) and a
  ``__setitem__`` leave their target untouched, a new result is made (its
  shape and dtype are right, its values are the placeholder NaN/0 a real
  capture leaves: never read before a launch). Random draws and allocations
  through the fake namespace are events too (a launch draws fresh numbers).
* ``Graph.launch()`` runs the events in order on the same arrays: results are
  written into the arrays the capture handed out, ``out=`` targets and
  ``__setitem__`` targets are updated in place.
* Reading a value on the host while capturing (``float``, ``bool``, ``item``,
  ``tolist``, ``cupy.asnumpy``) raises ``cudaErrorStreamCaptureUnsupported``, as a
  synchronous device-to-host copy does on a capturing stream; so does
  synchronizing a capturing stream.
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import numpy as np

__all__ = ["DeviceArray", "make_graph_api"]


class DeviceArray(np.ndarray):
    """An array of the fake device: operations on it are captured while a stream captures."""

    _fake: Any = None  # the FakeCuda that made the array (set on the class by make_graph_api)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        fake = _owner(inputs, kwargs.get("out"))
        plain_in = tuple(_plain(x) for x in inputs)
        out = kwargs.get("out")
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
        capture = fake.capturing if fake is not None else None
        if capture is not None and out is not None:
            capture.append(("ufunc_out", (ufunc, method, plain_in, dict(kwargs))))
            return out[0] if len(out) == 1 else out
        result = getattr(ufunc, method)(*plain_in, **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        wrapped = _wrap(result, fake)
        if capture is not None:
            _fill_placeholder(wrapped)
            call = (lambda u=ufunc, m=method, a=plain_in, k=dict(kwargs): getattr(u, m)(*a, **k))
            capture.append(("result", (call, wrapped)))
        return wrapped

    def __array_function__(self, func, types, args, kwargs):
        fake = _owner(_leaves(args), None)
        plain_args, plain_kwargs = _plain_tree(args), _plain_tree(kwargs)
        result = func(*plain_args, **plain_kwargs)  # plain arrays: no nested dispatch
        if not isinstance(result, (np.ndarray, np.generic, tuple)):
            return result
        wrapped = _wrap(result, fake)
        if fake is not None and fake.capturing is not None and isinstance(wrapped, np.ndarray) \
                and not any(np.may_share_memory(wrapped, a) for a in _leaves(plain_args)):
            _fill_placeholder(wrapped)
            call = (lambda: func(*plain_args, **plain_kwargs))
            fake.capturing.append(("result", (call, wrapped)))
        return wrapped

    # -- methods that copy without a ufunc: captured like functions ---------------------------
    def _copying(self, name, args, kwargs):
        plain = self.view(np.ndarray)
        result = getattr(plain, name)(*args, **kwargs)
        if not isinstance(result, np.ndarray):
            return result
        wrapped = _wrap(result, self._fake)
        fake = self._fake
        if fake is not None and fake.capturing is not None \
                and not np.may_share_memory(result, plain):
            _fill_placeholder(wrapped)
            call = (lambda: getattr(plain, name)(*args, **kwargs))
            fake.capturing.append(("result", (call, wrapped)))
        return wrapped

    def astype(self, *args, **kwargs):
        return self._copying("astype", args, kwargs)

    def copy(self, *args, **kwargs):
        return self._copying("copy", args, kwargs)

    def __getitem__(self, key):
        return self._copying("__getitem__", (_plain_tree(key),), {})

    def fill(self, value):
        if self._fake is not None and self._fake.capturing is not None:
            self._fake.capturing.append(("setitem", (self, Ellipsis, value)))
            return
        self.view(np.ndarray).fill(value)

    def __setitem__(self, key, value):
        fake = self._fake
        if fake is not None and fake.capturing is not None:
            fake.capturing.append(("setitem", (self, _plain_tree(key), _plain_tree(value))))
            return
        np.ndarray.__setitem__(self, key, value)

    # -- host reads: a synchronous copy, refused while capturing ----------------------------
    def _host(self):
        if self._fake is not None and self._fake.capturing is not None:
            raise self._fake.CUDARuntimeError(
                "cudaErrorStreamCaptureUnsupported: operation not permitted when stream is "
                "capturing")

    def __float__(self):
        self._host()
        return float(np.asarray(self))

    def __int__(self):
        self._host()
        return int(np.asarray(self))

    def __bool__(self):
        self._host()
        return bool(np.asarray(self))

    def item(self, *args):
        self._host()
        return np.asarray(self).item(*args)

    def tolist(self):
        self._host()
        return np.asarray(self).tolist()


def _plain(x):
    return x.view(np.ndarray) if isinstance(x, DeviceArray) else x


def _owner(inputs, out):
    for x in tuple(inputs) + tuple(out or ()):
        if isinstance(x, DeviceArray):
            return x._fake
    return None


def _leaves(tree):
    """The arrays in ``tree`` (arguments, possibly nested in lists, tuples and dicts)."""
    if isinstance(tree, np.ndarray):
        return [tree]
    if isinstance(tree, (list, tuple)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _leaves(item)]
    return []


def _plain_tree(tree):
    if isinstance(tree, DeviceArray):
        return tree.view(np.ndarray)
    if isinstance(tree, (list, tuple)):
        return type(tree)(_plain_tree(item) for item in tree)
    if isinstance(tree, dict):
        return {k: _plain_tree(v) for k, v in tree.items()}
    return tree


def _wrap(result, fake):
    """``result`` as a DeviceArray (NumPy scalars from reductions become 0-d arrays)."""
    if isinstance(result, tuple):
        return tuple(_wrap(r, fake) for r in result)
    if isinstance(result, DeviceArray):
        return result
    if isinstance(result, (np.ndarray, np.generic)):
        result = np.asarray(result)
        if result.base is None:
            # a fresh result owns its memory, as CuPy's do (``.base`` None): a view of it
            # would tell arraygrad's recorder that it views another array
            fresh = np.ndarray.__new__(DeviceArray, result.shape, result.dtype)
            np.copyto(fresh.view(np.ndarray), result)
            return fresh
        return result.view(DeviceArray)
    return result


def _fill_placeholder(array):
    """What a captured result holds before any launch: nothing meaningful."""
    if isinstance(array, np.ndarray) and array.size:
        view = array.view(np.ndarray)
        view[...] = np.nan if view.dtype.kind in "fc" else 0


def run_events(events):
    """One launch: every captured event, in capture order, on the captured arrays."""
    for kind, data in events:
        if kind == "ufunc_out":
            ufunc, method, inputs, kwargs = data
            getattr(ufunc, method)(*inputs, **kwargs)
        elif kind == "result":
            call, target = data
            fresh = call()
            np.copyto(target.view(np.ndarray), np.asarray(fresh), casting="unsafe")
        elif kind == "setitem":
            target, key, value = data
            np.ndarray.__setitem__(target.view(np.ndarray), key, value)


def make_graph_api(fake) -> dict[str, Any]:
    """``Stream``, ``Graph``, ``get_current_stream``, ``MemoryPool`` and ``using_allocator``
    for ``fake`` (a FakeCuda): the names ``cupy.cuda`` gains in device-arrays mode."""
    DeviceArray._fake = fake
    fake.capturing = None  # the event list of the capture in progress, or None
    fake.streams = []  # the current-stream stack ("with stream:")
    fake.allocators = []  # allocators installed by using_allocator (innermost last)

    class Graph:
        """``cupy.cuda.Graph``: the captured events; ``launch`` runs them."""

        def __init__(self, events):
            self.events = events
            self.launches = 0

        def launch(self, stream=None):
            fake.log.append(("graph.launch", fake.current))
            self.launches += 1
            run_events(self.events)

    class Stream:
        """``cupy.cuda.Stream``: a context making it current; capture records, not runs."""

        null = None

        def __init__(self, null=False, non_blocking=False, ptds=False):
            self.ptr = 0 if null else id(self)
            self.device_id = fake.current
            self._events = None

        def __enter__(self):
            fake.streams.append(self)
            return self

        def __exit__(self, *exc):
            fake.streams.pop()

        def begin_capture(self, mode=None):
            if self.ptr == 0:
                raise RuntimeError("cannot capture on the default (legacy) stream")
            if fake.capturing is not None:
                raise fake.CUDARuntimeError("cudaErrorIllegalState: already capturing")
            fake.log.append(("stream.begin_capture", fake.current))
            self._events = fake.capturing = []

        def end_capture(self):
            if self._events is None:
                raise fake.CUDARuntimeError("cudaErrorIllegalState: stream is not capturing")
            events, self._events, fake.capturing = self._events, None, None
            fake.log.append(("stream.end_capture", fake.current))
            return Graph(events)

        def is_capturing(self):
            return self._events is not None

        def synchronize(self):
            if self._events is not None:
                raise fake.CUDARuntimeError(
                    "cudaErrorStreamCaptureUnsupported: synchronize on a capturing stream")
            fake.log.append(("stream.synchronize", fake.current))

        def record(self, event=None):
            event = fake.Event() if event is None else event
            event.record(self)
            return event

        def wait_event(self, event):
            fake.log.append(("stream.wait_event", fake.current))

    Stream.null = Stream(null=True)

    def get_current_stream():
        return fake.streams[-1] if fake.streams else Stream.null

    class MemoryPool:
        """``cupy.cuda.MemoryPool``: counts what was allocated through it."""

        def __init__(self):
            self.allocations = 0

        def malloc(self, size):
            self.allocations += 1
            return size

        def free_all_blocks(self):
            pass

    @contextlib.contextmanager
    def using_allocator(allocator=None):
        fake.allocators.append(allocator)
        try:
            yield
        finally:
            fake.allocators.pop()

    return {"Stream": Stream, "Graph": Graph, "get_current_stream": get_current_stream,
            "MemoryPool": MemoryPool, "using_allocator": using_allocator}


def device_call(fake, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """A fake namespace function in device-arrays mode: logged, results made DeviceArrays,
    and the call itself captured (an allocation, a random draw) while a stream captures."""

    def call(*args, **kwargs):
        fake.log.append((name, fake.current))
        if fake.allocators and fake.allocators[-1] is not None:
            fake.allocators[-1](0)  # the installed allocator serves the allocation
        result = fn(*args, **kwargs)
        if isinstance(result, DeviceArray) or not isinstance(result, (np.ndarray, np.generic)):
            return result  # an operation on device arrays: its hooks saw it
        array = _wrap(result, fake)
        if fake.capturing is not None and not any(
                np.may_share_memory(array, a) for a in _leaves((args, kwargs))):
            _fill_placeholder(array)
            fake.capturing.append(("result", (lambda: fn(*args, **kwargs), array)))
        return array
    return call
