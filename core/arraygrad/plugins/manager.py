"""The plugin manager: entry points read once, lazily, each plugin isolated.

A plugin that fails to import or raises while registering is reported with a
``PluginLoadWarning`` naming its entry point and the error; every other
plugin still loads. ``ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD=1`` turns entry-point
discovery off (register plugins explicitly with ``register_plugin``).
"""

from __future__ import annotations

import importlib.metadata
import os
import threading
import warnings
from typing import Any, Callable

import pluggy

from arraygrad.plugins import hookspecs
from arraygrad.plugins.markers import PROJECT_NAME

__all__ = [
    "ENTRY_POINT_GROUP", "PluginLoadWarning", "get_plugin_manager", "load_plugins",
    "plugin_errors", "register_plugin", "call_each",
]

ENTRY_POINT_GROUP = "arraygrad"
DISABLE_ENV = "ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD"


class PluginLoadWarning(UserWarning):
    """A plugin could not be loaded or failed while registering; others still work."""


_pm: pluggy.PluginManager | None = None
_loaded = False
_lock = threading.RLock()
_errors: dict[str, str] = {}


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


def autoload_disabled() -> bool:
    """Whether ``ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD`` switches discovery off."""
    return os.environ.get(DISABLE_ENV, "").strip().lower() not in ("", "0", "false", "no")


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
    """Warn that a plugin failed, naming it and the error, and remember it."""
    message = f"arraygrad plugin {where} failed: {type(exc).__name__}: {exc}"
    _errors[key or where] = message
    warnings.warn(message, PluginLoadWarning, stacklevel=3)


def plugin_errors() -> dict[str, str]:
    """Errors met while loading plugins, by plugin name."""
    return dict(_errors)


def call_each(hook_name: str, **kwargs: Any) -> None:
    """Call a hook on every plugin separately, so one raising plugin cannot stop the rest."""
    pm = get_plugin_manager()
    caller = getattr(pm.hook, hook_name)
    for impl in caller.get_hookimpls():
        try:
            impl.function(**kwargs)
        except Exception as exc:
            report_failure(f"{impl.plugin_name!r} in {hook_name}", exc, key=impl.plugin_name)


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
        _notify_listeners()
