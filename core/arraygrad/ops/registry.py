"""The op registry: ops and per-backend kernels contributed by plugins.

Op plugins implement the ``arraygrad_register_ops(registry)`` hook. Plugins are
visited in name order (deterministic); a plugin that raises is reported with a
``PluginLoadWarning`` and the others still register. Registering a name that
exists raises ``OpRegistrationError`` unless ``override=True``, which is logged.

>>> @hookimpl
... def arraygrad_register_ops(registry):
...     registry.op("erf", erf, namespace="special", method="erf", cases=ERF_CASES)
...     registry.kernel("erf", "numpy", scipy_erf_kernel)
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from arraygrad.plugins import manager

__all__ = ["OpDef", "OpRegistrar", "OpRegistrationError", "get_op", "get_kernel", "ops",
           "load_ops", "run_kernel"]

log = logging.getLogger("arraygrad.ops")


class OpRegistrationError(ValueError):
    """An op or kernel name clashes with an existing one (and ``override`` was not given)."""


@dataclass
class OpDef:
    """One registered op: its callable, where it is exposed, and its conformance cases."""

    name: str
    fn: Callable
    plugin: str
    namespace: str | None = None
    method: str | None = None
    cases: tuple = ()
    doc: str = ""


@dataclass
class _State:
    ops: dict = field(default_factory=dict)
    kernels: dict = field(default_factory=dict)
    loaded: bool = False


_state = _State()
_lock = threading.RLock()


class OpRegistrar:
    """What ``arraygrad_register_ops`` receives: ``op(...)`` and ``kernel(...)``."""

    def __init__(self, plugin: str):
        self.plugin = plugin

    def _clash(self, what: str, owner: str, override: bool, refusal: str) -> None:
        """A registration meets an earlier one: refuse it, or (``override``) log the takeover."""
        if not override:
            raise OpRegistrationError(refusal)
        log.warning("%s from plugin %r overrides the one from %r", what, self.plugin, owner)

    def op(self, name: str, fn: Callable, *, namespace: str | None = None,
           method: str | None = None, cases=(), override: bool = False, doc: str = "") -> None:
        """Register op ``name`` implemented by ``fn`` (a function of tensors).

        ``namespace``: expose it as ``arraygrad.<namespace>.<name>`` (e.g. "special");
        ``method``: also as ``Tensor.<method>``; ``cases``: conformance ``OpCase``s.
        """
        if not callable(fn):
            raise OpRegistrationError(f"plugin {self.plugin!r}: op {name!r} is not callable")
        existing = _state.ops.get(name)
        if existing is not None:
            self._clash(f"op {name!r}", existing.plugin, override,
                        f"op {name!r} from plugin {self.plugin!r} clashes with the one registered "
                        f"by {existing.plugin!r}; pass override=True to replace it")
        if method is not None:
            from arraygrad.tensor import Tensor

            if method in Tensor.__dict__ and not override:
                raise OpRegistrationError(
                    f"plugin {self.plugin!r}: Tensor.{method} already exists; pass override=True")
        _state.ops[name] = OpDef(name, fn, self.plugin, namespace, method, tuple(cases),
                                 doc or (fn.__doc__ or ""))
        manager.note_registration(self.plugin, f"op {namespace + '.' if namespace else ''}{name}")

    def kernel(self, op_name: str, backend_name: str, fn: Callable, *,
               override: bool = False) -> None:
        """Register a fast kernel for ``op_name`` on ``backend_name`` (native arrays in and out)."""
        key = (op_name, backend_name)
        existing = _state.kernels.get(key)
        if existing is not None:
            self._clash(f"kernel {op_name!r} on {backend_name!r}", existing[1], override,
                        f"kernel for op {op_name!r} on backend {backend_name!r} from plugin "
                        f"{self.plugin!r} clashes with the one from {existing[1]!r}; pass "
                        "override=True")
        _state.kernels[key] = (fn, self.plugin)
        manager.note_registration(self.plugin, f"kernel {op_name} on {backend_name}")


def load_ops() -> None:
    """Run every plugin's ``arraygrad_register_ops`` once, in plugin-name order."""
    if _state.loaded:
        return
    with _lock:
        if _state.loaded:
            return
        pm = manager.get_plugin_manager()
        impls = sorted(pm.hook.arraygrad_register_ops.get_hookimpls(),
                       key=lambda impl: impl.plugin_name)
        for impl in impls:
            registrar = OpRegistrar(impl.plugin_name)
            try:
                impl.function(registry=registrar)
            except Exception as exc:  # a broken op plugin must not brick the host
                manager.report_failure(f"{impl.plugin_name!r} (registering ops)", exc,
                                       key=impl.plugin_name)
        _state.loaded = True


def _forget() -> None:
    with _lock:
        _state.ops.clear()
        _state.kernels.clear()
        _state.loaded = False


manager.on_plugins_changed(_forget)


def ops() -> dict[str, OpDef]:
    """Every op registered by plugins, by name."""
    load_ops()
    return dict(_state.ops)


def get_op(name: str) -> OpDef | None:
    """The plugin op called ``name``, or None."""
    load_ops()
    return _state.ops.get(name)


def get_kernel(op_name: str, backend) -> Callable | None:
    """The kernel a plugin registered for ``op_name`` on ``backend``, else the backend's own."""
    if not _state.loaded:
        load_ops()
    entry = _state.kernels.get((op_name, backend.name))
    if entry is not None:
        return entry[0]
    return backend.kernel(op_name)


def run_kernel(op_name: str, backend, portable: Callable, *args, **kwargs):
    """Run the plugin kernel for ``op_name`` on ``backend`` if any, else ``portable``.

    A plugin kernel that raises is reported (naming its plugin and distribution),
    dropped for the rest of the process, and the portable implementation runs
    instead, so a broken kernel cannot break the op. Under
    ``ARRAYGRAD_STRICT_PLUGINS=1`` the failure is an error.
    """
    if not _state.loaded:
        load_ops()
    entry = _state.kernels.get((op_name, backend.name))
    if entry is None:
        return portable(*args, **kwargs)
    kernel, plugin = entry
    try:
        return kernel(*args, **kwargs)
    except Exception as exc:
        with _lock:
            _state.kernels.pop((op_name, backend.name), None)
        manager.report_failure(f"{plugin!r} (kernel {op_name!r} on backend {backend.name!r})",
                               exc, key=plugin)
        return portable(*args, **kwargs)


def namespace_op(namespace: str, name: str) -> Any:
    """The op ``name`` registered under ``namespace``, or AttributeError."""
    load_ops()
    for op in _state.ops.values():
        if op.namespace == namespace and op.name == name:
            return op.fn
    raise AttributeError(name)


def method_op(method: str) -> Callable | None:
    """The plugin op exposed as ``Tensor.<method>``, if any."""
    load_ops()
    for op in _state.ops.values():
        if op.method == method:
            return op.fn
    return None
