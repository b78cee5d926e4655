"""Process-group backends by name, collected through the ``arraygrad_register_distributed`` hook."""

from __future__ import annotations

import sys
from typing import Any, Callable

from arraygrad.plugins import manager

__all__ = ["backend_factories", "get_factory"]


def backend_factories() -> dict[str, Callable[..., Any]]:
    """Every registered backend's factory, by lower-case name (the core's plugin included)."""
    from arraygrad.distributed import plugin as core_plugin

    pm = manager.get_plugin_manager()
    if pm.get_plugin(core_plugin.PLUGIN_NAME) is None:
        # not through register_plugin: that would reset the array-backend registry
        pm.register(sys.modules[core_plugin.__name__], name=core_plugin.PLUGIN_NAME)
    found: dict[str, Callable[..., Any]] = {}
    for impl in sorted(pm.hook.arraygrad_register_distributed.get_hookimpls(),
                       key=lambda i: i.plugin_name != core_plugin.PLUGIN_NAME):

        def register(name: str, factory: Callable[..., Any], _p: str = impl.plugin_name) -> None:
            key = name.lower()
            if key in found:
                raise ValueError(f"process-group backend {name!r} from plugin {_p!r} is "
                                 "already registered")
            found[key] = factory
            manager.note_registration(_p, f"distributed backend {key}")

        try:
            impl.function(register=register)
        except Exception as exc:  # a broken plugin must not take the others down
            manager.report_failure(f"{impl.plugin_name!r} (registering distributed backends)",
                                   exc, key=impl.plugin_name)
    return found


def get_factory(backend: str) -> Callable[..., Any]:
    """The factory of ``backend``; ValueError naming the registered ones if unknown."""
    factories = backend_factories()
    try:
        return factories[backend.lower()]
    except KeyError:
        raise ValueError(f"Invalid backend: '{backend}'; registered process-group backends: "
                         f"{sorted(factories)}") from None
