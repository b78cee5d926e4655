"""The backend registry: filled from the plugins on first need, then cached."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from arraygrad.backends.contract import Availability, Backend
from arraygrad.device import as_device, device
from arraygrad.plugins import manager


__all__ = [
    "BackendInfo", "BackendRegistrationError", "available", "backend_for_device",
    "default_backend", "get_backend", "register_backend",
]


class BackendRegistrationError(ValueError):
    """A plugin registered something that is not a usable backend, or a duplicate name."""


@dataclass(frozen=True)
class BackendInfo:
    """One row of ``available()``: a backend found, whether it works here, and why not."""

    name: str
    device_type: str
    available: bool
    reason: str
    plugin: str


_lock = threading.RLock()
_backends: dict[str, Backend] | None = None
_origin: dict[str, str] = {}
_device_cache: dict[device, Backend] = {}
_current_index: dict[str, int] = {}  # device type -> the index a device without one means


def _check(backend: object, plugin: str) -> Backend:
    if not isinstance(backend, Backend):
        raise BackendRegistrationError(
            f"plugin {plugin!r} registered {backend!r}, which is not an arraygrad.backends.Backend")
    if not isinstance(backend.name, str) or not backend.name.isidentifier():
        raise BackendRegistrationError(
            f"plugin {plugin!r} registered a backend with invalid name {backend.name!r}")
    if not isinstance(backend.device_type, str) or not backend.device_type:
        raise BackendRegistrationError(
            f"backend {backend.name!r} from plugin {plugin!r} has no device_type")
    return backend


def _add(backends: dict[str, Backend], backend: object, plugin: str) -> None:
    backend = _check(backend, plugin)
    if backend.name in backends:
        raise BackendRegistrationError(
            f"duplicate backend name {backend.name!r}: registered by plugin "
            f"{_origin[backend.name]!r} and again by plugin {plugin!r}")
    backends[backend.name] = backend
    _origin[backend.name] = plugin
    manager.note_registration(plugin, f"backend {backend.name} ({backend.device_type})")


def _registry() -> dict[str, Backend]:
    global _backends
    if _backends is not None:
        return _backends
    with _lock:
        if _backends is None:
            found: dict[str, Backend] = {}
            pm = manager.get_plugin_manager()
            for impl in pm.hook.arraygrad_register_backends.get_hookimpls():
                plugin = impl.plugin_name
                try:
                    impl.function(register=lambda b, _p=plugin: _add(found, b, _p))
                except Exception as exc:  # isolate a broken plugin
                    manager.report_failure(f"{plugin!r} (registering backends)", exc, key=plugin)
            _backends = found
    return _backends


def _forget() -> None:
    global _backends
    with _lock:
        _backends = None
        _origin.clear()
        _device_cache.clear()
        _current_index.clear()


manager.on_plugins_changed(_forget)


def register_backend(backend: Backend) -> None:
    """Register a backend by hand (e.g. with plugin autoload disabled)."""
    with _lock:
        _add(_registry(), backend, "<register_backend>")
        _device_cache.clear()


def get_backend(name: str) -> Backend:
    """The registered backend called ``name``; RuntimeError if missing or unusable."""
    backends = _registry()
    try:
        backend = backends[name]
    except KeyError:
        raise RuntimeError(
            f"no arraygrad backend named {name!r}; found: {sorted(backends) or 'none'}"
            + _install_hint()) from None
    status = _probe(backend)
    if not status:
        raise RuntimeError(f"backend {name!r} is not available: {status.reason}")
    return backend


def _probe(backend: Backend) -> Availability:
    """``backend.is_available()``, turning a probe that raises into an unavailable answer."""
    try:
        return backend.is_available()
    except Exception as exc:  # a third-party probe must not break device lookup
        return Availability(False, f"availability check raised {type(exc).__name__}: {exc}")


def available() -> list[BackendInfo]:
    """Every backend found, whether it is usable here, and why not."""
    rows = []
    for name, backend in sorted(_registry().items()):
        status = _probe(backend)
        rows.append(BackendInfo(name, backend.device_type, bool(status), status.reason,
                                _origin.get(name, "?")))
    return rows


def device_count(device_type: str) -> int:
    """The number of ``device_type`` devices the first usable backend of that type sees (0
    without one)."""
    for backend in _registry().values():
        if backend.device_type == device_type and backend.is_available():
            return backend.device_count()
    return 0


def backend_for_device(dev: Any) -> Backend:
    """The backend instance that computes on device ``dev`` (``"cpu"``, ``"cuda:1"``)."""
    dev = as_device(dev)
    cached = _device_cache.get(dev)
    if cached is not None:
        return cached
    with _lock:
        candidates = [b for b in _registry().values() if b.device_type == dev.type]
        if not candidates:
            raise RuntimeError(f"no arraygrad backend serves device {str(dev)!r}" + _install_hint())
        candidates.sort(key=lambda b: -b.priority)
        reasons = []
        for backend in candidates:
            status = _probe(backend)
            if status:
                index = dev.index if dev.index is not None else _current_index.get(dev.type)
                instance = backend.for_device(index)
                _device_cache[dev] = instance
                return instance
            reasons.append(f"{backend.name}: {status.reason}")
        raise RuntimeError(f"device {str(dev)!r} is not available ({'; '.join(reasons)})")


def set_current_index(device_type: str, index: int) -> None:
    """Make a ``device_type`` device without an index (``"cuda"``) mean ``index`` from now on
    (``torch.cuda.set_device``); 0 until set."""
    with _lock:
        _current_index[device_type] = int(index)
        _device_cache.pop(device(device_type), None)


def current_index(device_type: str) -> int:
    """The index a ``device_type`` device without one means (``set_current_index``)."""
    return _current_index.get(device_type, 0)


def default_backend() -> Backend:
    """The backend for the default device (``cpu``)."""
    return backend_for_device(_DEFAULT_DEVICE)


_DEFAULT_DEVICE = device("cpu")


def _install_hint() -> str:
    if manager.autoload_disabled():
        return (f" (plugin autoload is off: {manager.DISABLE_ENV} is set; register backends "
                "with arraygrad.backends.register_backend)")
    return " (install a backend, e.g. pip install 'arraygrad[numpy]')"
