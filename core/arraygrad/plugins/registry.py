"""The op registry: ops and per-backend kernels contributed by plugins.

Op plugins implement the ``arraygrad_register_ops(registry)`` hook. Plugins are
visited in name order (deterministic); a plugin that raises is reported with a
``PluginLoadWarning`` and the others still register. Registering a name that
exists raises ``OpRegistrationError`` unless ``override=True``, which is logged.

An op registered with ``method=`` is bound onto ``Tensor`` as it registers, and
unbound when the plugin set changes; until the ops are loaded, ``Tensor`` has a
``__getattr__`` that loads them on the first unknown name (then is removed).
Every kernel call goes through ``dispatch_kernel``, which survives a kernel
that raises.

>>> @hookimpl
... def arraygrad_register_ops(registry):
...     registry.op("erf", erf, namespace="special", method="erf", cases=ERF_CASES)
...     registry.kernel("erf", "numpy", scipy_erf_kernel)
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any, Callable
import logging
import threading
from dataclasses import dataclass, field

from arraygrad.transform_state import hooks as _transform_hooks
from arraygrad.plugins import manager
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["OpDef", "OpRegistrar", "OpRegistrationError", "get_op", "get_kernel", "ops",
           "load_ops", "dispatch_kernel", "install_method_loader"]

log = logging.getLogger("arraygrad.ops")


class OpRegistrationError(ValueError):
    """An op or kernel name clashes with an existing one (and ``override`` was not given)."""


@dataclass
class OpDef:
    """One registered op: its callable, where it is exposed, and its conformance cases."""

    name: str
    fn: Callable[..., Any]
    plugin: str
    namespace: str | None = None
    method: str | None = None
    cases: tuple[Any, ...] = ()
    doc: str = ""


@dataclass
class _State:
    ops: dict[Any, Any] = field(default_factory=dict)
    kernels: dict[Any, Any] = field(default_factory=dict)  # (op, backend name) -> (kernel, plugin)
    methods: dict[Any, Any] = field(default_factory=dict)  # Tensor method name -> op name
    displaced: dict[Any, Any] = field(default_factory=dict)  # Tensor's own attributes an override replaced
    dropped: set[Any] = field(default_factory=set)  # (op, backend name) whose kernel raised
    loaded: bool = False


_state = _State()
_lock = threading.RLock()


class OpRegistrar:
    """What ``arraygrad_register_ops`` receives: ``op(...)`` and ``kernel(...)``."""

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin

    def _clash(self, what: str, owner: str, override: bool, refusal: str) -> None:
        """A registration meets an earlier one: refuse it, or (``override``) log the takeover."""
        if not override:
            raise OpRegistrationError(refusal)
        log.warning("%s from plugin %r overrides the one from %r", what, self.plugin, owner)

    def op(self, name: str, fn: Callable[..., Any], *, namespace: str | None = None,
           method: str | None = None, cases: Any = (), override: bool = False,
           doc: str = "") -> None:
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
            self._check_method(name, method, override)
        with _lock:
            if existing is not None and existing.method is not None:
                _unbind(existing.method)
            _state.ops[name] = OpDef(name, fn, self.plugin, namespace, method, tuple(cases),
                                     doc or (fn.__doc__ or ""))
            if method is not None:
                _bind(method, name, fn)
        manager.note_registration(self.plugin, f"op {namespace + '.' if namespace else ''}{name}")

    def _check_method(self, name: str, method: str, override: bool) -> None:
        """Refuse (or, with ``override``, log) a ``Tensor.<method>`` that exists already."""
        owner = _state.methods.get(method)
        if owner is not None and owner != name:
            self._clash(f"Tensor.{method}", _state.ops[owner].plugin, override,
                        f"plugin {self.plugin!r}: Tensor.{method} is already the method of op "
                        f"{owner!r}; pass override=True")
        elif owner is None and method in Tensor.__dict__:
            self._clash(f"Tensor.{method}", "arraygrad", override,
                        f"plugin {self.plugin!r}: Tensor.{method} already exists; pass "
                        "override=True")

    def kernel(self, op_name: str, backend_name: str, fn: Callable[..., Any], *,
               override: bool = False) -> None:
        """Register a fast kernel for ``op_name`` on ``backend_name`` (native arrays in and out)."""
        key = (op_name, backend_name)
        existing = _state.kernels.get(key)
        if existing is not None:
            self._clash(f"kernel {op_name!r} on {backend_name!r}", existing[1], override,
                        f"kernel for op {op_name!r} on backend {backend_name!r} from plugin "
                        f"{self.plugin!r} clashes with the one from {existing[1]!r}; pass "
                        "override=True")
        with _lock:
            _state.kernels[key] = (fn, self.plugin)
            _state.dropped.discard(key)  # a new kernel gets its own chance
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
        if Tensor.__dict__.get("__getattr__") is _load_on_first_miss:
            del Tensor.__getattr__  # the methods are bound: a miss is now an ordinary miss


# -- Tensor methods --------------------------------------------------------------------------

def _as_method(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as something that binds to the tensor (other callables get a function around)."""
    if inspect.isfunction(fn):
        return fn

    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        return fn(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = getattr(fn, "__name__", "method")
    method.__doc__ = getattr(fn, "__doc__", None)
    return method


def _bind(method: str, op_name: str, fn: Callable[..., Any]) -> None:
    """Make ``fn`` ``Tensor.<method>``, remembering a Tensor attribute it replaces."""
    if method not in _state.methods and method in Tensor.__dict__:
        _state.displaced[method] = Tensor.__dict__[method]
    _state.methods[method] = op_name
    setattr(Tensor, method, _as_method(fn))


def _unbind(method: str) -> None:
    """Take ``Tensor.<method>`` away again (putting back what it replaced, if anything)."""
    if _state.methods.pop(method, None) is None:
        return
    original = _state.displaced.pop(method, None)
    if original is not None:
        setattr(Tensor, method, original)
    else:
        delattr(Tensor, method)


def _load_on_first_miss(self: Tensor, name: str) -> Any:
    """``Tensor.__getattr__`` until the ops load: load them (binding plugin methods), look again."""
    if name.startswith("_") or _state.loaded:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute {name!r}")
    load_ops()
    return getattr(self, name)


def install_method_loader() -> None:
    """Let the first unknown ``Tensor`` attribute load the op plugins, so their methods exist.

    Called when ``arraygrad`` is imported and whenever the plugin set changes;
    loading the ops removes the hook again, so a later miss costs nothing extra.
    """
    if not _state.loaded:
        # only until the ops load (then removed)
        Tensor.__getattr__ = _load_on_first_miss  # type: ignore[method-assign]


def _forget() -> None:
    """The plugin set changed: drop every op, kernel and bound method; load again on need."""
    with _lock:
        for method in list(_state.methods):
            _unbind(method)
        _state.ops.clear()
        _state.kernels.clear()
        _state.dropped.clear()
        _state.loaded = False
        install_method_loader()


manager.on_plugins_changed(_forget)


def ops() -> dict[str, OpDef]:
    """Every op registered by plugins, by name."""
    load_ops()
    return dict(_state.ops)


def get_op(name: str) -> OpDef | None:
    """The plugin op called ``name``, or None."""
    load_ops()
    return _state.ops.get(name)


def get_kernel(op_name: str, backend: Backend) -> Callable[..., Any] | None:
    """The kernel ``dispatch_kernel`` would try for ``op_name`` on ``backend``, or None.

    A plugin's kernel for the backend, else the backend's own ``kernel(op_name)``;
    None once one of them raised. Call kernels through ``dispatch_kernel``, not directly.
    """
    return _lookup(op_name, backend)[0]


def _lookup(op_name: str, backend: Backend) -> tuple[Callable[..., Any] | None, str | None]:
    """``(kernel, plugin)`` for ``op_name`` on ``backend`` (``plugin`` None: the backend's own)."""
    if not _state.loaded:
        load_ops()
    key = (op_name, backend.name)
    if key in _state.dropped:
        return None, None
    entry = _state.kernels.get(key)
    if entry is not None:
        return entry
    return backend.kernel(op_name), None


def dispatch_kernel(op_name: str, backend: Backend, portable: Callable[..., Any], *args: Any,
                    **kwargs: Any) -> Any:
    """``op_name``'s kernel for ``backend`` on ``args``, else ``portable(*args, **kwargs)``.

    The kernel is a plugin's (registered with ``registry.kernel``), else the
    backend's own ``kernel(op_name)``. It may return ``NotImplemented`` to
    decline one call; then ``portable`` runs. A kernel that raises is reported
    (naming its plugin and distribution), dropped for the rest of the process
    (until the plugin set changes), and ``portable`` runs instead, so a broken
    kernel cannot break the op. Under ``ARRAYGRAD_STRICT_PLUGINS=1`` the failure
    is a ``PluginError``.
    """
    kernel, plugin = _lookup(op_name, backend)
    if kernel is None:
        return portable(*args, **kwargs)
    view = _transform_hooks.kernel_view  # a recording transform's (``transform_state``)
    if view is not None and plugin is not None:
        # (a plugin's kernel only: a backend's own comes from ``backend.kernel``, which a
        # recording backend hands back recorded already; a second wrapping recorded the call
        # on the first's traced result and broke the graph)
        kernel = view(kernel)
    try:
        out = kernel(*args, **kwargs)
    except Exception as exc:
        _drop(op_name, backend, plugin, exc)
        return portable(*args, **kwargs)
    return portable(*args, **kwargs) if out is NotImplemented else out


def _drop(op_name: str, backend: Backend, plugin: str | None, exc: Exception) -> None:
    """Stop using the kernel that raised ``exc`` and report it (as its plugin's failure)."""
    if plugin is None:  # the backend's own kernel: blame the plugin that registered the backend
        from arraygrad.backends import registry as backends

        plugin = backends._origin.get(backend.name)  # None for a backend registered by hand
        where = f"{plugin or 'unknown'!r} (backend {backend.name!r}'s own kernel {op_name!r})"
    else:
        where = f"{plugin!r} (kernel {op_name!r} on backend {backend.name!r})"
    with _lock:
        _state.dropped.add((op_name, backend.name))
    manager.report_failure(where, exc, key=plugin)


def namespace_op(namespace: str, name: str) -> Any:
    """The op ``name`` registered under ``namespace``, or AttributeError."""
    load_ops()
    for op in _state.ops.values():
        if op.namespace == namespace and op.name == name:
            return op.fn
    raise AttributeError(name)

