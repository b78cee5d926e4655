"""The ``arraygrad`` command (also ``python -m arraygrad``): ``arraygrad plugins``, ``arraygrad backends``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from arraygrad.backends import registry as _backends
from arraygrad.plugins import manager as _manager, registry as _op_registry
from arraygrad.plugins.manager import PluginInfo


__all__ = ["main", "plugin_report"]


def plugin_report() -> list[PluginInfo]:
    """Every plugin known: its distribution and version, what it registered, any load error.

    Runs the backend and op registrations first, so everything plugins register is listed.
    """
    _backends.available()
    _op_registry.load_ops()
    return _manager.plugin_infos()


def _plugins(args: Any) -> int:
    rows = plugin_report()
    if not rows:
        print("no arraygrad plugins found"
              + (" (autoload is disabled)" if _autoload_off() else ""))
        return 0
    for row in rows:
        version = f" {row.version}" if row.version else ""
        print(f"{row.name}  [{row.distribution}{version}]")
        for what in row.registered:
            print(f"    registered {what}")
        if row.error:
            print(f"    ERROR: {row.error}")
    return 1 if args.strict and any(r.error for r in rows) else 0


def _list_backends(args: Any) -> int:
    for info in _backends.available():
        status = "available" if info.available else f"unavailable: {info.reason}"
        print(f"{info.name:<10} {info.device_type:<8} {status}  (plugin {info.plugin})")
    return 0


def _autoload_off() -> bool:
    return _manager.autoload_disabled()


def main(argv: Any = None) -> int:
    """Entry point of the ``arraygrad`` command."""
    parser = argparse.ArgumentParser(prog="arraygrad", description="arraygrad utilities")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("plugins", help="list plugins, their versions, registrations and errors")
    p.add_argument("--strict", action="store_true", help="exit 1 if any plugin failed")
    p.set_defaults(run=_plugins)
    b = sub.add_parser("backends", help="list backends and whether they are usable here")
    b.set_defaults(run=_list_backends)
    args = parser.parse_args(argv)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # failures are listed in the report itself
        return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
