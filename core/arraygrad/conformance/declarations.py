"""What backends and plugins declare through the ``arraygrad_conformance`` hook.

Each plugin's hook receives a ``ConformanceRegistrar``::

    @hookimpl
    def arraygrad_conformance(register):
        register.backend("mine", capabilities={"dtypes": ("float32",), "float64": False,
                                               "device_types": ("mine",),
                                               "lacks": {"float64": "no doubles on the chip"}},
                         xfail={"grad[exp/basic]": "exp's backward is approximate"})
        register.cases(MY_CASES)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["BackendDeclaration", "ConformanceRegistrar", "Declarations", "collect"]

_CAPABILITY_KEYS = {"dtypes", "float64", "device_types", "lacks", "values"}


@dataclass
class BackendDeclaration:
    """One backend's declared capabilities and expected failures ``{check_id: reason}``."""

    name: str
    capabilities: dict[Any, Any] = field(default_factory=dict)
    xfail: dict[Any, Any] = field(default_factory=dict)
    plugin: str = ""


@dataclass
class Declarations:
    """Everything every plugin declared: backends by name, and extra op cases."""

    backends: dict[Any, Any] = field(default_factory=dict)
    cases: list[Any] = field(default_factory=list)


class ConformanceRegistrar:
    """What ``arraygrad_conformance`` receives: ``backend(...)`` and ``cases(...)``."""

    def __init__(self, plugin: str, into: Declarations) -> None:
        self.plugin = plugin
        self._into = into

    def backend(self, name: str, *, capabilities: dict[Any, Any] | None = None,
                xfail: dict[Any, Any] | None = None) -> None:
        """Declare backend ``name``'s capabilities and its expected failures.

        ``capabilities`` keys: ``dtypes`` (the floating dtype names the ``dtypes`` checks run
        in), ``float64`` (bool), ``device_types``, ``lacks`` (``{dtype name: reason}``: every
        arraygrad dtype the backend does not provide, checked by
        ``declarations[dtypes_declared]``), ``values`` (False: the backend's arrays hold no
        elements, as the meta device's: value comparisons become shape and dtype comparisons,
        and the checks that only read values skip); missing keys are read from the backend
        itself (``lacks``: none; ``values``: ``Backend.holds_data``).
        ``xfail`` maps check ids to reasons; each must fail (strict).
        """
        capabilities = dict(capabilities or {})
        unknown = set(capabilities) - _CAPABILITY_KEYS
        if unknown:
            raise ValueError(f"plugin {self.plugin!r}: unknown capabilities {sorted(unknown)}")
        lacks = capabilities.get("lacks", {})
        if not isinstance(lacks, dict) or not all(
                isinstance(k, str) and isinstance(v, str) and v for k, v in lacks.items()):
            raise ValueError(f"plugin {self.plugin!r}: capabilities['lacks'] is "
                             f"{{dtype name: non-empty reason}}, got {lacks!r}")
        for check, reason in (xfail or {}).items():
            if not isinstance(check, str) or not isinstance(reason, str) or not reason:
                raise ValueError(f"plugin {self.plugin!r}: xfail entries are "
                                 f"{{check_id: non-empty reason}}, got {check!r}: {reason!r}")
        decl = self._into.backends.setdefault(name, BackendDeclaration(name, plugin=self.plugin))
        decl.capabilities.update(capabilities)
        decl.xfail.update(xfail or {})

    def cases(self, cases: Any) -> None:
        """Add op cases (``OpCase``) checked on every backend."""
        from arraygrad.conformance.case import OpCase

        for c in cases:
            if not isinstance(c, OpCase):
                raise TypeError(f"plugin {self.plugin!r}: register.cases expects OpCase, got {c!r}")
            self._into.cases.append(c)


def collect() -> Declarations:
    """Run every plugin's ``arraygrad_conformance`` hook, in plugin-name order."""
    from arraygrad.plugins import manager

    found = Declarations()
    pm = manager.get_plugin_manager()
    impls = sorted(pm.hook.arraygrad_conformance.get_hookimpls(), key=lambda i: i.plugin_name)
    for impl in impls:
        impl.function(register=ConformanceRegistrar(impl.plugin_name, found))
    return found
