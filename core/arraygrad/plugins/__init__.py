"""arraygrad's plugin system: one pluggy manager, fed from the ``arraygrad`` entry points.

Backends and op libraries are plugins. Write one as a module with hook
implementations and name it in your distribution's entry points::

    # pyproject.toml
    [project.entry-points.arraygrad]
    mybackend = "mybackend.plugin"

    # mybackend/plugin.py
    from arraygrad.plugins import hookimpl

    @hookimpl
    def arraygrad_register_backends(register):
        register(MyBackend())
"""

from arraygrad.plugins.markers import hookimpl, hookspec
from arraygrad.plugins.manager import (
    ENTRY_POINT_GROUP,
    PluginError,
    PluginInfo,
    PluginLoadWarning,
    get_plugin_manager,
    load_plugins,
    plugin_errors,
    register_plugin,
)

__all__ = [
    "ENTRY_POINT_GROUP", "PluginError", "PluginInfo", "PluginLoadWarning", "get_plugin_manager",
    "hookimpl", "hookspec", "load_plugins", "plugin_errors", "register_plugin",
]
