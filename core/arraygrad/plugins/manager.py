"""The plugin manager: entry points read once, lazily, each plugin isolated.

A plugin that fails to import or raises while registering is reported with a
``PluginLoadWarning`` naming its entry point, its distribution and the error;
every other plugin still loads. ``ARRAYGRAD_STRICT_PLUGINS=1`` turns those
warnings into ``PluginError``s. ``ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD=1`` turns
entry-point discovery off, so no third-party code runs at import (register
plugins explicitly with ``register_plugin``).
"""

from __future__ import annotations

import importlib.metadata
import os
from dataclasses import dataclass, field
import threading
import warnings
from typing import Any, Callable

import pluggy

from arraygrad.plugins import hookspecs
from arraygrad.plugins.markers import PROJECT_NAME

__all__ = [
    "ENTRY_POINT_GROUP", "PluginError", "PluginLoadWarning", "PluginInfo", "get_plugin_manager",
    "load_plugins", "plugin_errors", "plugin_infos", "register_plugin", "note_registration",
]

ENTRY_POINT_GROUP = "arraygrad"
DISABLE_ENV = "ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD"
STRICT_ENV = "ARRAYGRAD_STRICT_PLUGINS"


class PluginLoadWarning(UserWarning):
    """A plugin could not be loaded or failed while registering; others still work."""


class PluginError(RuntimeError):
    """A plugin failed and ``ARRAYGRAD_STRICT_PLUGINS=1`` asks for failures to be errors."""


@dataclass
class PluginInfo:
    """One row of ``arraygrad plugins``: a plugin, where it comes from, what it registered."""

    name: str
    distribution: str
    version: str
    registered: list[Any] = field(default_factory=list)
    error: str = ""


_pm: pluggy.PluginManager | None = None
_loaded = False
_lock = threading.RLock()
_errors: dict[str, str] = {}
_origins: dict[str, tuple[str, str]] = {}  # plugin name -> (distribution, version)
_registered: dict[str, list[Any]] = {}  # plugin name -> ["backend numpy", "op erf", ...]


def get_plugin_manager() -> pluggy.PluginManager:
    """The single ``pluggy.PluginManager("arraygrad")``, with entry points loaded."""
    if not _loaded:
        load_plugins()
    return _pm  # type: ignore[return-value]


def _manager() -> pluggy.PluginManager:
    global _pm
    if _pm is None:
        _pm = pluggy.PluginManager(PROJECT_NAME)
        _pm.add_hookspecs(hookspecs)
    return _pm


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def autoload_disabled() -> bool:
    """Whether ``ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD`` switches discovery off."""
    return _env_flag(DISABLE_ENV)


def strict_plugins() -> bool:
    """Whether ``ARRAYGRAD_STRICT_PLUGINS`` makes plugin failures errors."""
    return _env_flag(STRICT_ENV)


def load_plugins() -> None:
    """Discover and register the ``arraygrad`` entry points (once per process)."""
    global _loaded
    with _lock:
        if _loaded:
            return
        pm = _manager()
        _loaded = True
        if autoload_disabled():
            return
        for ep in sorted(importlib.metadata.entry_points(group=ENTRY_POINT_GROUP),
                         key=lambda e: e.name):
            if pm.get_plugin(ep.name) is not None or pm.is_blocked(ep.name):
                continue
            dist = getattr(ep, "dist", None)
            _origins[ep.name] = ((dist.metadata["Name"] if dist else "?"),
                                 (dist.version if dist else "?"))
            try:
                plugin = ep.load()
            except Exception as exc:  # a broken plugin must not brick the host
                report_failure(f"entry point {ep.name!r} ({ep.value})", exc, key=ep.name)
                continue
            pm.register(plugin, name=ep.name)


def register_plugin(plugin: Any, name: str | None = None) -> str:
    """Register a plugin object or module by hand (works with autoload disabled)."""
    with _lock:
        pm = get_plugin_manager()  # entry points first, so they keep their names
        registered = pm.register(plugin, name=name)
        if registered is None:
            raise ValueError(f"register_plugin: plugin {name or plugin!r} is already registered")
        _notify_listeners()
        return registered


def report_failure(where: str, exc: BaseException, key: str | None = None) -> None:
    """Warn that a plugin failed, naming it, its distribution and the error, and remember it.

    With ``ARRAYGRAD_STRICT_PLUGINS=1`` this raises ``PluginError`` instead.
    """
    origin = _origins.get(key or "")
    source = f" from distribution {origin[0]!r} {origin[1]}" if origin else ""
    message = f"arraygrad plugin {where}{source} failed: {type(exc).__name__}: {exc}"
    _errors[key or where] = message
    if strict_plugins():
        raise PluginError(message) from exc
    warnings.warn(message, PluginLoadWarning, stacklevel=3)


def plugin_errors() -> dict[str, str]:
    """Errors met while loading plugins, by plugin name."""
    return dict(_errors)


def note_registration(plugin: str, what: str) -> None:
    """Record that ``plugin`` registered ``what`` (e.g. "backend numpy"), for ``plugin_infos``."""
    _registered.setdefault(plugin, []).append(what)


def plugin_infos() -> list[PluginInfo]:
    """Every plugin known so far: its distribution and version, what it registered, any error.

    Registrations are recorded as the backend and op registries run, which this does
    not trigger; ``arraygrad.cli.plugin_report`` runs them first.
    """
    pm = get_plugin_manager()
    names = sorted(set(_origins) | {name for name, _ in pm.list_name_plugin()} | set(_errors))
    rows = []
    for name in names:
        dist, version = _origins.get(name, ("(registered by hand)", ""))
        rows.append(PluginInfo(name, dist, version, list(_registered.get(name, [])),
                               _errors.get(name, "")))
    return rows


_listeners: list[Callable[[], None]] = []


def on_plugins_changed(fn: Callable[[], None]) -> None:
    """Run ``fn`` whenever a plugin is registered by hand (registries refresh)."""
    _listeners.append(fn)


def _notify_listeners() -> None:
    for fn in _listeners:
        fn()


def _reset_for_tests() -> None:
    """Forget every plugin and error, so discovery runs again (tests only)."""
    global _pm, _loaded
    with _lock:
        _pm, _loaded = None, False
        _errors.clear()
        _registered.clear()
        _notify_listeners()
