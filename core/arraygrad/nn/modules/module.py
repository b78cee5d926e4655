"""``nn.Module``: the base class of layers and models, in PyTorch's shape.

A module keeps its parameters, buffers and sub-modules in three ordered
dicts filled by ``__setattr__`` in assignment order; iteration, ``state_dict``
and ``repr`` walk them recursively. ``__call__`` runs ``forward`` between the
forward pre-hooks and forward hooks and, when backward hooks are registered,
wraps inputs and outputs so those hooks fire during backward (see
``_backward_hook``).
"""

from __future__ import annotations

import inspect
import warnings
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Self, TypeVar

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.autograd.hooks import HookDict, RemovableHandle
from arraygrad.nn.modules import _global_hooks as _g
from arraygrad.nn.modules._backward_hook import BackwardHook
from arraygrad.nn.modules._global_hooks import (  # noqa: F401  (PyTorch's home of these names)
    register_module_backward_hook, register_module_buffer_registration_hook,
    register_module_forward_hook, register_module_forward_pre_hook,
    register_module_full_backward_hook, register_module_full_backward_pre_hook,
    register_module_module_registration_hook, register_module_parameter_registration_hook)
from arraygrad.nn.modules._state_dict import (EXTRA_STATE_KEY_SUFFIX, IncompatibleKeys,
                                              LoadTransaction, plan_write)
from arraygrad.nn.parameter import Buffer, Parameter, is_lazy
from arraygrad.tensor import Tensor
from arraygrad.transform_state import compile_epochs as _epochs
from arraygrad.transform_state import compile_hooks as _compile_hooks

if TYPE_CHECKING:
    from arraygrad import dtypes as _dt
    from arraygrad.device import DeviceLike

# Only Module joins the ``nn`` namespace (the star import of each family); the global hook
# registration functions live here, as ``torch.nn.modules.module.register_module_*``.
__all__ = ["Module"]

_IncompatibleKeys = IncompatibleKeys
_EXTRA_STATE_KEY_SUFFIX = EXTRA_STATE_KEY_SUFFIX

# the per-module hook dicts, created in __init__ and refilled by __setstate__
_HOOK_DICTS = ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks",
               "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
               "_backward_pre_hooks", "_backward_hooks", "_state_dict_pre_hooks",
               "_state_dict_hooks", "_state_dict_hooks_public", "_load_state_dict_pre_hooks",
               "_load_state_dict_post_hooks")


class _WrappedHook:
    """A load_state_dict pre-hook, called with its module (held weakly) first when asked."""

    def __init__(self, hook: Callable[..., Any], module: Module | None = None) -> None:
        self.hook = hook
        self.with_module = module is not None
        self.module = weakref.ref(module) if module is not None else None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.module is not None:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)

    def __getstate__(self) -> dict[str, Any]:
        return {"hook": self.hook, "module": self.module() if self.module is not None else None,
                "with_module": self.with_module}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.hook = state["hook"]
        self.with_module = state["with_module"]
        if self.with_module and state["module"] is None:
            raise RuntimeError("You are trying to revive the hook of a dead Module!")
        self.module = weakref.ref(state["module"]) if self.with_module else None


def _typename(obj: object) -> str:
    """PyTorch's ``torch.typename``: the type name an error message shows."""
    if isinstance(obj, Tensor):
        return f"arraygrad.{type(obj).__name__}" if isinstance(obj, Parameter) else "arraygrad.Tensor"
    module = type(obj).__module__
    name = type(obj).__qualname__
    return name if module in ("builtins", None) else f"{module}.{name}"


def _addindent(s: str, num_spaces: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(num_spaces * " " + line for line in lines)


def _add_hook(hooks: HookDict, handle: RemovableHandle, hook: Callable[..., Any],
              prepend: bool) -> None:
    """Store ``hook`` at the end of ``hooks`` (or at the front with ``prepend``)."""
    if not prepend:
        hooks[handle.id] = hook
        return
    rest = list(hooks.items())
    hooks.clear()
    hooks[handle.id] = hook
    hooks.update(rest)


class Module:
    """Base class of all neural-network modules; subclasses define ``forward``.

    >>> class Net(Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = Linear(4, 1)
    ...     def forward(self, x):
    ...         return self.fc(x)
    >>> Net()
    Net(
      (fc): Linear(in_features=4, out_features=1, bias=True)
    )
    """

    training: bool
    _version: int = 1
    call_super_init: bool = False
    """When True, ``Module.__init__`` passes its arguments on to the next class in the MRO
    (cooperative multiple inheritance), as PyTorch's."""
    dump_patches: bool = False
    """PyTorch's legacy switch for printing source patches of saved modules; kept for code that
    sets it."""
    T_destination = TypeVar("T_destination", bound=dict[str, Any])
    """The type variable PyTorch's ``state_dict`` annotations use."""

    # Set in __init__ through object.__setattr__ (Module.__setattr__ needs them to exist).
    _parameters: OrderedDict[str, Parameter | None]
    _buffers: OrderedDict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: OrderedDict[str, Module | None]
    _forward_pre_hooks: HookDict
    _forward_pre_hooks_with_kwargs: HookDict
    _forward_hooks: HookDict
    _forward_hooks_with_kwargs: HookDict
    _forward_hooks_always_called: HookDict
    _backward_pre_hooks: HookDict
    _backward_hooks: HookDict
    _state_dict_pre_hooks: HookDict
    _state_dict_hooks: HookDict
    _state_dict_hooks_public: HookDict
    _load_state_dict_pre_hooks: HookDict
    _load_state_dict_post_hooks: HookDict

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if not self.call_super_init and (args or kwargs):
            raise TypeError(
                f"{type(self).__name__}.__init__() got unexpected arguments: {args!r}, {kwargs!r}")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", OrderedDict())
        setattr_(self, "_buffers", OrderedDict())
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", OrderedDict())
        for name in _HOOK_DICTS:
            setattr_(self, name, HookDict())
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def __setstate__(self, state: dict[str, Any]) -> None:
        # a module pickled by an older arraygrad lacks the hook dicts added since
        self.__dict__.update(state)
        for name in _HOOK_DICTS:
            if name not in self.__dict__:
                object.__setattr__(self, name, HookDict())
        if "_non_persistent_buffers_set" not in self.__dict__:
            object.__setattr__(self, "_non_persistent_buffers_set", set())

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The computation of this module; every subclass defines it."""
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -- registration ----------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a tensor that is state but not a parameter (e.g. running statistics).

        Non-persistent buffers are left out of ``state_dict``.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(arraygrad Tensor or None required)")
        for hook in tuple(_g._global_buffer_registration_hooks.values()):
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or a None placeholder) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(arraygrad.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method.")
        else:
            for hook in tuple(_g._global_parameter_registration_hooks.values()):
                output = hook(self, name, param)
                if output is not None:
                    param = output
            self._parameters[name] = param

    def add_module(self, name: str, module: "Module | None") -> None:
        """Add a child module, reachable as the attribute ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = self._run_module_registration_hooks(name, module)

    def _run_module_registration_hooks(self, name: str, module: Module | None) -> Module | None:
        for hook in tuple(_g._global_module_registration_hooks.values()):
            output = hook(self, name, module)
            if output is not None:
                module = output
        return module

    def register_module(self, name: str, module: "Module | None") -> None:
        """Alias of ``add_module``."""
        self.add_module(name, module)

    def get_submodule(self, target: str) -> "Module":
        """The sub-module at dotted path ``target`` (``""`` is self)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Put ``module`` at dotted path ``target`` (its parent must exist).

        An existing attribute there must be a module; with ``strict`` it must exist.
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(f"{parent._get_name()} has no attribute `{atoms[-1]}`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError(f"`{atoms[-1]}` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        buffer = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return buffer

    def get_extra_state(self) -> Any:
        """Extra (non-tensor) state to store in ``state_dict`` under ``<prefix>_extra_state``.

        Override it together with ``set_extra_state``; a module that does not has no
        such entry.
        """
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called: "
            "state_dict only calls it on modules that override it.")

    def set_extra_state(self, state: Any) -> None:
        """Restore what ``get_extra_state`` returned (called by ``load_state_dict``)."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called: "
            "load_state_dict only calls it on modules that override it.")

    # -- attribute protocol ----------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        _epochs.module_attrs += 1  # (compile's guards re-read the modules' attributes)
        def remove_from(*dicts_or_sets: dict[str, Any] | set[str]) -> None:
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(arraygrad.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                modules[name] = self._run_module_registration_hooks(name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(arraygrad.nn.Module or None expected)")
                modules[name] = self._run_module_registration_hooks(name, value)
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer):  # ``self.x = nn.Buffer(t)`` registers a buffer
                    if buffers is None:
                        raise AttributeError("cannot assign buffer before Module.__init__() call")
                    self.register_buffer(name, value, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(arraygrad.Tensor or None expected)")
                    self._reregister_buffer(name, value)
                else:
                    object.__setattr__(self, name, value)

    def _reregister_buffer(self, name: str, value: Tensor | None) -> None:
        """Assigning to a buffer goes through ``register_buffer`` (hooks, overrides), as PyTorch."""
        persistent = name not in self._non_persistent_buffers_set
        register = self.register_buffer
        if getattr(register, "__func__", None) is Module.register_buffer:
            register(name, value, persistent)
        elif "persistent" in inspect.signature(register).parameters:
            register(name, value, persistent)
        elif not persistent:
            raise RuntimeError("Registering a non-persistent buffer on a Module subclass that "
                               "implements register_buffer() without the persistent argument "
                               "is not allowed.")
        else:
            register(name, value)

    def __delattr__(self, name: str) -> None:
        _epochs.module_attrs += 1
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = list(object.__dir__(self))
        extra = list(self._parameters) + list(self._modules) + list(self._buffers)
        keys += [k for k in extra if not k[:1].isdigit()]
        return sorted(set(keys))

    # -- iteration ------------------------------------------------------------------
    def _named_members(self, get_members: Callable[[Module], Iterable[tuple[str, Any]]],
                       prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or id(v) in memo:
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """This module's parameters, then its children's (each shared one once)."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(dotted name, parameter)`` pairs: a module's own before its children's."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """This module's buffers, then its children's."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """``(dotted name, buffer)`` pairs."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self) -> Iterator["Module"]:
        """The immediate sub-modules."""
        for _, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        """``(name, module)`` for the immediate sub-modules (each once)."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self, remove_duplicate: bool = True) -> Iterator["Module"]:
        """This module and every sub-module, depth first (a shared one once, unless
        ``remove_duplicate=False``)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """``(dotted name, module)`` for this module (name ``prefix``) and all below it.

        ``memo`` collects the modules already visited (skipped when met again);
        ``remove_duplicate=False`` lists a module shared under several names each time.
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub_prefix, remove_duplicate)

    # -- modes and bulk changes ------------------------------------------------------------
    def train(self, mode: bool = True) -> Self:
        """Set training mode (dropout active, batch norm uses batch statistics) recursively."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Self:
        """``train(False)``."""
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Self:
        """Set ``requires_grad`` of every parameter (freeze with False)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the parameters' gradients: to None (default), or to zeros."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> Self:
        """Call ``fn`` on every sub-module (children first), then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Self:
        """Replace every parameter's and buffer's data (and grad) by ``fn`` of it, in place.

        Parameters keep their identity (optimizers holding them stay valid).
        """
        if recurse:
            for module in self.children():
                module._apply(fn)
        with no_grad():
            for param in self._parameters.values():
                if param is None:
                    continue
                param.data = fn(param)
                if param._grad is not None:
                    param._grad = fn(param._grad)
            for key, buf in self._buffers.items():
                if buf is not None:
                    self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Self:
        """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``, ``to(tensor)``.

        Only floating-point tensors change dtype (``num_batches_tracked`` stays int64).
        """
        from arraygrad.ops.transfer import _parse

        dev, dt, _ = _parse(args, dict(kwargs))
        if dt is not None and not dt.is_floating_point:
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                f"dtype={dt}")

        def convert(t: Tensor) -> Tensor:
            out = t
            if dev is not None:
                out = out.to(dev)
            if dt is not None and out.is_floating_point():
                out = out.to(dt)
            return out

        return self._apply(convert)

    def cpu(self) -> Self:
        """Move everything to the CPU."""
        return self.to("cpu")

    def cuda(self, device: DeviceLike | None = None) -> Self:
        """Move everything to a CUDA device (``cuda:0`` by default)."""
        return self._apply(lambda t: t.cuda(device))

    def xpu(self, device: DeviceLike | None = None) -> Self:
        """Move everything to an XPU device (no arraygrad backend serves one: the tensors'
        ``xpu`` raises, as on a PyTorch build without XPU)."""
        return self._apply(lambda t: t.xpu(device))

    def ipu(self, device: DeviceLike | None = None) -> Self:
        """Move everything to an IPU device (none is served: the tensors' ``ipu`` raises)."""
        return self._apply(lambda t: t.ipu(device))

    def mtia(self, device: DeviceLike | None = None) -> Self:
        """Move everything to an MTIA device (none is served: the tensors' ``mtia`` raises)."""
        return self._apply(lambda t: t.mtia(device))

    def float(self) -> Self:
        """Cast floating-point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Self:
        """Cast floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Self:
        """Cast floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Self:
        """Cast floating-point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def type(self, dst_type: _dt.dtype | str) -> Self:
        """Cast every parameter and buffer (floating or not) to ``dst_type``."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device: DeviceLike | None, recurse: bool = True) -> Self:
        """Replace parameters and buffers by uninitialised tensors of the same shape and dtype
        on ``device`` (values are then set by an initialiser or ``load_state_dict``)."""
        from arraygrad.creation import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def share_memory(self) -> Self:
        """A no-op returning self: arraygrad has no inter-process shared tensors (PyTorch moves
        the storages to shared memory for ``torch.multiprocessing``)."""
        return self

    # -- state dict -------------------------------------------------------------------------
    def _overrides(self, name: str) -> bool:
        """Whether this module's class overrides Module's method ``name``."""
        return getattr(type(self), name, None) is not getattr(Module, name)

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str,
                            keep_vars: bool) -> None:
        """Put this module's own parameters, persistent buffers and extra state (not its
        children's) into ``destination``; an override point, as in PyTorch."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if self._overrides("get_extra_state"):
            destination[prefix + EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args: Any, destination: dict[str, Any] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """An ``OrderedDict`` of every parameter and persistent buffer, keyed by dotted name.

        Values are detached tensors sharing memory with the module (``keep_vars``
        keeps the parameters themselves). As PyTorch, the dict carries ``_metadata``
        (each module's ``version``), and the state-dict pre/post hooks run around it.
        Positional arguments (``destination, prefix, keep_vars``) are deprecated.
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "the documentation of Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in tuple(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook_id, hook in tuple(self._state_dict_hooks.items()):
            result = hook(self, destination, prefix, local_metadata)
            if hook_id in self._state_dict_hooks_public:
                if result is not None:
                    raise RuntimeError("state_dict post-hook must return None")
            elif result is not None:
                # the private API's old behaviour: a returned dict replaces the result
                destination = result
        return destination

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before ``state_dict`` saves this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict`` saved this
        module and its children; it may change ``state_dict`` in place and must return None."""
        handle = RemovableHandle(self._state_dict_hooks, self._state_dict_hooks_public)
        self._state_dict_hooks[handle.id] = hook
        self._state_dict_hooks_public[handle.id] = True
        return handle

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """The older private form of ``register_state_dict_post_hook``: a dict the hook
        returns replaces the state dict (respected on the module ``state_dict`` was called on)."""
        public = {id(h) for k, h in self._state_dict_hooks.items()
                  if k in self._state_dict_hooks_public}
        if id(hook) in public:
            raise RuntimeError("Cannot register the same function as the state dict post hook "
                               "that was previously registered via register_state_dict_post_hook")
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook: Callable[..., Any],
                                           with_module: bool = False) -> RemovableHandle:
        """A ``load_state_dict`` pre-hook, called with ``module`` first only with ``with_module``:
        ``hook([module,] state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)``."""
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(
            hook, self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module's entries are loaded; it may
        change ``state_dict`` (e.g. rename old keys) in place."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` after ``load_state_dict`` loaded this module.

        It may change ``incompatible_keys.missing_keys``/``unexpected_keys`` in place
        (the strict check sees the changes) and must return None.
        """
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str,
                              local_metadata: dict[str, Any], strict: bool,
                              missing_keys: list[str], unexpected_keys: list[str],
                              error_msgs: list[str]) -> None:
        """Load this module's own entries (not its children's) from ``state_dict``.

        The override point of PyTorch: runs the load pre-hooks, checks each parameter and
        persistent buffer (type, shape), appends problems to ``error_msgs``, missing keys
        and (with ``strict``) unexpected ones. Inside ``load_state_dict`` the copies are
        made only after the whole model checked out (see ``_state_dict``).
        """
        for hook in tuple(self._load_state_dict_pre_hooks.values()):
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        local_state: dict[str, Tensor] = {k: v for k, v in self._parameters.items()
                                          if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers_set)
        assign = bool(local_metadata.get("assign_to_params_buffers", False))
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected arraygrad.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(input_param)}")
                continue
            if is_lazy(param):  # a lazy module's: takes the checkpoint's shape (PyTorch's hook)
                if not is_lazy(input_param):
                    plan_write("materialize", self, name, param, input_param.detach())
                continue
            # a 0-d entry saved as shape (1,) by old checkpoints loads, as in PyTorch
            if param.dim() == 0 and input_param.dim() == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]
            if tuple(input_param.shape) != tuple(param.shape):
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                    f"from checkpoint, the shape in current model is {param.shape}.")
                continue
            if param.is_meta and not input_param.is_meta and not assign:
                warnings.warn(
                    f"for {key}: copying from a non-meta parameter in the checkpoint to a meta "
                    "parameter in the current model, which is a no-op. (Did you mean to pass "
                    "`assign=True` to assign items in the state dictionary to their "
                    "corresponding key in the module instead of copying them in place?)",
                    stacklevel=2)
            if assign:
                plan_write("assign", self, name, None, input_param)
                continue
            try:
                # converted now, so the copy made later cannot fail
                value = input_param.detach().to(device=param.device, dtype=param.dtype)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{input_param.size()}, an exception occurred : {ex.args}.")
                continue
            plan_write("copy", self, name, param, value)
        extra_key = prefix + EXTRA_STATE_KEY_SUFFIX
        if self._overrides("set_extra_state"):
            if extra_key in state_dict:
                plan_write("extra", self, EXTRA_STATE_KEY_SUFFIX, None, state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_key:
                    head, dot, _ = key[len(prefix):].partition(".")
                    if (head not in self._modules) if dot else (head not in local_state):
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict``; returns ``(missing_keys, unexpected_keys)``.

        Raises RuntimeError (listing every problem) on a size mismatch, or with
        ``strict`` on missing/unexpected keys; then nothing is modified.
        ``assign=True`` puts the checkpoint's tensors in place of the module's (as
        Parameters keeping each parameter's ``requires_grad``) instead of copying into them.
        Each module's ``_load_from_state_dict`` and load hooks run as in PyTorch.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)  # a copy: _load_from_state_dict may change it
        if metadata is not None:
            state_dict._metadata = metadata  # type: ignore[attr-defined]
        post_order: list[Module] = []

        def load(module: Module, local_state_dict: dict[str, Any], prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing, unexpected, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items()
                                 if k.startswith(child_prefix)}, child_prefix)
            post_order.append(module)

        with LoadTransaction() as txn:
            load(self, state_dict)
        if error_msgs or not any(m._load_state_dict_post_hooks for m in post_order):
            self._raise_load_errors(strict, missing, unexpected, error_msgs)
            txn.apply(record_undo=False)
            return _IncompatibleKeys(missing, unexpected)
        # post-hooks see the loaded module and may still add or clear keys: undo on error
        txn.apply(record_undo=True)
        try:
            incompatible = _IncompatibleKeys(missing, unexpected)
            for module in post_order:
                for hook in tuple(module._load_state_dict_post_hooks.values()):
                    if hook(module, incompatible) is not None:
                        raise AssertionError(
                            "Hooks registered with ``register_load_state_dict_post_hook`` are "
                            "not expected to return new values, if incompatible_keys need to be "
                            "modified, it should be done inplace.")
            self._raise_load_errors(strict, missing, unexpected, error_msgs)
        except BaseException:
            txn.revert()
            raise
        return _IncompatibleKeys(missing, unexpected)

    def _raise_load_errors(self, strict: bool, missing: list[str], unexpected: list[str],
                           error_msgs: list[str]) -> None:
        """PyTorch's RuntimeError for ``load_state_dict``, when there is anything to report."""
        msgs = list(error_msgs)
        if strict:
            if unexpected:
                msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(msgs)))

    # -- hooks ------------------------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) before ``forward``.

        It may return new args (a single value is wrapped in a tuple), or with
        ``with_kwargs`` a ``(args, kwargs)`` pair.
        """
        handle = RemovableHandle(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs)
        _add_hook(self._forward_pre_hooks, handle, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable[..., Any], *, prepend: bool = False,
                              with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` (or with kwargs) after ``forward``; may return a new output.

        ``always_call``: also run when ``forward`` raised.
        """
        handle = RemovableHandle(self._forward_hooks, self._forward_hooks_with_kwargs,
                                 self._forward_hooks_always_called)
        _add_hook(self._forward_hooks, handle, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook: Callable[..., Any],
                                        prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` when the output gradients arrive; may return new ones."""
        handle = RemovableHandle(self._backward_pre_hooks)
        _add_hook(self._backward_pre_hooks, handle, hook, prepend)
        return handle

    def register_full_backward_hook(self, hook: Callable[..., Any],
                                    prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` once the input gradients are computed.

        ``grad_input`` has one entry per positional input (None where it needs no
        gradient); the hook may return a replacement tuple.
        """
        handle = RemovableHandle(self._backward_hooks)
        _add_hook(self._backward_hooks, handle, hook, prepend)
        return handle

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Same as ``register_full_backward_hook`` (the correct module-level meaning).

        Unlike PyTorch's deprecated version, ``grad_input`` is the gradient w.r.t.
        the module's inputs, not the inputs of its last internal operation.
        """
        return self.register_full_backward_hook(hook)

    # -- calling ------------------------------------------------------------------------------
    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks or _g._has_any_global_hook()):
            return self.forward(*args, **kwargs)
        # the global hooks (nn.modules.module.register_module_*) run before the module's own
        forward_hooks = (*_g._global_forward_hooks.items(), *self._forward_hooks.items())
        always = set(self._forward_hooks_always_called) | set(
            _g._global_forward_hooks_always_called)
        with_kwargs = set(self._forward_hooks_with_kwargs) | set(
            _g._global_forward_hooks_with_kwargs)
        called_always = set()
        result = None
        try:
            for hook_id, hook in (*_g._global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    res = hook(self, args, kwargs)
                    if res is not None:
                        if isinstance(res, tuple) and len(res) == 2:
                            args, kwargs = res
                        else:
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of (new_args, "
                                f"new_kwargs), but got {res}.")
                else:
                    res = hook(self, args)
                    if res is not None:
                        args = res if isinstance(res, tuple) else (res,)
            bw_hook = None
            backward_hooks = [*_g._global_backward_hooks.values(), *self._backward_hooks.values()]
            backward_pre_hooks = [*_g._global_backward_pre_hooks.values(),
                                  *self._backward_pre_hooks.values()]
            if backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            for hook_id, hook in forward_hooks:
                if hook_id in always:
                    called_always.add(hook_id)
                if hook_id in with_kwargs:
                    res = hook(self, args, kwargs, result)
                else:
                    res = hook(self, args, result)
                if res is not None:
                    result = res
            if bw_hook is not None:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(result)}",
                                  stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            return result
        except Exception:
            # forward hooks registered with always_call still see the call; an error of theirs
            # is reported as a warning so the original exception propagates
            for hook_id, hook in forward_hooks:
                if hook_id not in always or hook_id in called_always:
                    continue
                try:
                    if hook_id in with_kwargs:
                        res = hook(self, args, kwargs, result)
                    else:
                        res = hook(self, args, result)
                    if res is not None:
                        result = res
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an "
                                  "exception that was silenced as another error was raised in "
                                  f"forward: {e}", stacklevel=2)
            raise

    __call__ = _call_impl

    _compiled_call_impl: Callable[..., Any] | None = None
    """The compiled forward ``compile()`` installs (PyTorch's attribute name); None: eager."""

    def compile(self, *args: Any, **kwargs: Any) -> None:
        """Compile this module's ``forward`` with ``arraygrad.compile``, in place: the module
        stays itself (same class, same ``state_dict`` keys, unlike
        ``arraygrad.compile(module)``'s ``OptimizedModule``). The arguments are
        ``arraygrad.compile``'s. The module's own hooks run around the compiled forward,
        eagerly (PyTorch compiles them with it; in a recording a hook with Python side
        effects could only be a graph break)."""
        compile_fn = _compile_hooks.compile  # ``arraygrad.compile`` (the package registers it)

        # an instance attribute that ``_call_impl`` calls as ``self.forward``: a module's call
        # costs no more than before, compiled or not
        forward = self.__dict__.get("forward")  # an instance's own forward, if it has one
        if forward is None or forward is self._compiled_call_impl:  # (compiled again: afresh)
            forward = type(self).forward.__get__(self)
        compiled = compile_fn(forward, *args, **kwargs)
        object.__setattr__(self, "_compiled_call_impl", compiled)
        object.__setattr__(self, "forward", compiled)

    def __getstate__(self) -> dict[str, Any]:
        # a compiled forward holds generated code and arrays of its recordings: not state
        state = self.__dict__.copy()
        compiled = state.pop("_compiled_call_impl", None)
        if compiled is not None and state.get("forward") is compiled:
            del state["forward"]
        return state

    # -- printing ----------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr``; layers override it."""
        return ""

    def __repr__(self) -> str:
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
