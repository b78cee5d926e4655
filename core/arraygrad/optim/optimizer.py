"""``Optimizer``: parameter groups, per-parameter state, PyTorch-format state dicts and hooks.

Subclasses implement ``_update_group(group)``; ``step`` runs it for every
group under ``no_grad`` (under grad mode when ``differentiable=True``, so the
update is recorded, as PyTorch's ``_use_grad_for_differentiable``).

The updates are written as PyTorch's are: hyperparameters read from the group as plain
numbers, a state step count read with ``_get_value`` and square roots of numbers taken with
``_dispatch_sqrt`` (PyTorch's helpers, of the same names). Under ``arraygrad.compile`` the
recorder reads those numbers live (``arraygrad.compiler.group_reads``): the update needs no
knowledge of the compiler, and a Python branch on a number is a guard of the program.
"""

from __future__ import annotations

import functools
import math
import sys
import warnings
from collections import defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Iterable, Iterator, Union

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import enable_grad, no_grad, set_grad_enabled
from arraygrad.autograd.hooks import HookDict, RemovableHandle
from arraygrad.backends.materialization import after_step
from arraygrad.tensor import Tensor
from arraygrad.transform_state import recording_flag as _recording

__all__ = ["Optimizer", "required", "ParamsT", "register_optimizer_step_pre_hook",
           "register_optimizer_step_post_hook"]

# What an optimizer takes: tensors, parameter-group dicts, or (name, tensor) pairs
# (as torch.optim.optimizer.ParamsT).
ParamsT = Union[Iterable[Tensor], Iterable[dict[str, Any]], Iterable[tuple[str, Tensor]]]

# hooks run around every optimizer's step (torch.optim.optimizer's global hooks)
_global_step_pre_hooks = HookDict()
_global_step_post_hooks = HookDict()


def _get_value(x: Any) -> Any:
    """The number a one-element state tensor holds (a step count, a tensor ``lr``); a plain
    number as it is. PyTorch's helper of the same name; while ``arraygrad.compile`` records, the
    recorder's live read of it (evaluated again at every replay)."""
    if not isinstance(x, Tensor):
        return x
    if _recording.on and _recording.read_live is not None:
        return _recording.read_live(x)
    return x.item()


def _dispatch_sqrt(x: Any) -> Any:
    """``math.sqrt`` of a Python number, ``Tensor.sqrt`` of a tensor (PyTorch's helper)."""
    if x.__class__ is float:  # (the eager case: no attribute probe on the hot path)
        return math.sqrt(x)
    if isinstance(x, Tensor):
        return x.sqrt()
    apply = getattr(x, "live_apply", None)  # a live scalar, while arraygrad.compile records
    return apply(math.sqrt) if apply is not None else math.sqrt(x)


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before every optimizer's ``step``; it may return
    ``(new_args, new_kwargs)``."""
    return RemovableHandle(_global_step_pre_hooks).add(_global_step_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after every optimizer's ``step``."""
    return RemovableHandle(_global_step_post_hooks).add(_global_step_post_hooks, hook)


def _with_step_hooks(func: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a ``step`` so the global and per-optimizer pre/post hooks run around it, inside a
    profiler range ``Optimizer.step#<class>.step`` while a profile is recording
    (``Optimizer.profile_hook_step``)."""

    @functools.wraps(func)
    def step(*args: Any, **kwargs: Any) -> Any:
        profiler = sys.modules.get("arraygrad.autograd.profiler")  # not imported: not profiling
        if profiler is not None and profiler._active is not None:
            with profiler.record_function(f"Optimizer.step#{type(args[0]).__name__}.step"):
                return _hooked_step(func, args, kwargs)
        return _hooked_step(func, args, kwargs)

    step.hooked = True  # type: ignore[attr-defined]
    return step


def _hooked_step(func: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    """The hooks around one ``step`` call (global pre hooks first, global post hooks last)."""
    self = args[0]
    for pre in chain(list(_global_step_pre_hooks.values()),
                     list(self._optimizer_step_pre_hooks.values())):
        result = pre(self, args, kwargs)
        if result is not None:
            if isinstance(result, tuple) and len(result) == 2:
                args, kwargs = result
            else:
                raise RuntimeError(f"{func} must return None or a tuple of "
                                   f"(new_args, new_kwargs), but got {result}.")
    out = func(*args, **kwargs)
    after_step(self)  # a lazy backend's computation point (backends.materialization)
    for post in chain(list(self._optimizer_step_post_hooks.values()),
                      list(_global_step_post_hooks.values())):
        post(self, args, kwargs)
    return out


def _add_hook(hooks: HookDict, hook: Callable[..., Any], prepend: bool) -> RemovableHandle:
    handle = RemovableHandle(hooks).add(hooks, hook)
    if prepend:
        items = list(hooks.items())
        hooks.clear()
        hooks[handle.id] = hook
        hooks.update((k, v) for k, v in items if k != handle.id)
    return handle


class _RequiredParameter:
    """Sentinel default for a hyper-parameter every group must set (``optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of all optimizers, like ``torch.optim.Optimizer``.

    ``params``: an iterable of tensors, or of dicts (parameter groups) each
    holding ``"params"`` and per-group overrides of ``defaults``.
    """

    _opt_called: bool  # set by an LR scheduler's wrapper of ``step``

    OptimizerPreHook = Callable[..., Any]
    """A step pre hook's type: ``hook(optimizer, args, kwargs) -> None | (args, kwargs)``."""
    OptimizerPostHook = Callable[..., Any]
    """A step post hook's type: ``hook(optimizer, args, kwargs) -> None``."""
    _takes_sparse_grads = False
    """Whether ``step`` takes sparse gradients (PyTorch's SGD, Adagrad and SparseAdam do);
    the others raise PyTorch's error naming ``_sparse_name`` (default: the class's name)."""
    _sparse_name: str | None = None
    profile_hook_step = staticmethod(_with_step_hooks)
    """The decorator every optimizer's ``step`` is wrapped in: the step hooks, and a profiler
    range ``Optimizer.step#<class>.step`` while profiling (PyTorch's
    ``Optimizer.profile_hook_step``)."""

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._init_hooks()
        self._patch_step_function()
        self.state: defaultdict[Tensor, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {type(params).__name__}")
        param_groups: list[Any] = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def _init_hooks(self) -> None:
        self._optimizer_step_pre_hooks = HookDict()
        self._optimizer_step_post_hooks = HookDict()
        self._optimizer_state_dict_pre_hooks = HookDict()
        self._optimizer_state_dict_post_hooks = HookDict()
        self._optimizer_load_state_dict_pre_hooks = HookDict()
        self._optimizer_load_state_dict_post_hooks = HookDict()

    def _patch_step_function(self) -> None:
        # as PyTorch: the class's ``step`` is wrapped once so every subclass runs the hooks
        cls = type(self)
        if not getattr(cls.step, "hooked", False):
            cls.step = _with_step_hooks(cls.step)  # type: ignore[method-assign]

    # -- groups ---------------------------------------------------------------------
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with optional hyper-parameter overrides).

        Parameters may be tensors or ``(name, tensor)`` pairs (then the group
        keeps ``"param_names"``); a parameter already in another group is a
        ``ValueError``. Nothing changes when an error is raised.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        tensors = [p[1] if isinstance(p, tuple) else p for p in params]
        if names and len(names) != len(tensors):
            raise ValueError("all optimizer params should be with/without names. Some param "
                             "names are missing")
        differentiable = bool(self.defaults.get("differentiable", False))
        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                f"{type(param).__name__}")
            # a differentiable optimizer updates non-leaf tensors (the update is recorded)
            if not differentiable and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
        for group in self.param_groups:
            if ("param_names" in group) != bool(names):
                which = "with names" if names else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if seen & {id(p) for p in tensors}:
            raise ValueError("some parameters appear in more than one parameter group")
        if len(tensors) != len({id(p) for p in tensors}):
            # PyTorch only warns here (see pytorch/pytorch#40967)
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        # every check passed: only now is the caller's dict filled in
        param_group["params"] = tensors
        if names:
            param_group["param_names"] = names
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        self.param_groups.append(param_group)

    # -- gradients -------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad`` (to None by default, else to zeros)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    g = p._grad
                    if g._grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    with no_grad():
                        g.zero_()

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """One update of every parameter; ``closure`` re-evaluates and returns the loss."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        if not self._takes_sparse_grads:  # checked first: a refused step changes nothing
            self._refuse_sparse_grads()
        with set_grad_enabled(bool(self.defaults.get("differentiable", False))):
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _refuse_sparse_grads(self) -> None:
        """PyTorch's RuntimeError when a parameter's gradient is sparse."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p._grad
                if g is not None and g.is_sparse:
                    name = self._sparse_name or type(self).__name__
                    hint = ", please consider SparseAdam instead" if name == "Adam" else ""
                    raise RuntimeError(f"{name} does not support sparse gradients{hint}")

    def _grads(self, group: dict[str, Any]) -> Iterator[tuple[Tensor, Tensor, dict[str, Any]]]:
        """Each parameter of ``group`` that has a gradient, with that gradient (negated when
        the group maximizes) and the parameter's state dict."""
        maximize = group.get("maximize", False)
        for p in group["params"]:
            if p.grad is not None:
                yield p, (-p.grad if maximize else p.grad), self.state[p]

    def _update_group(self, group: dict[str, Any]) -> None:
        raise NotImplementedError

    # -- hooks ----------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` before ``step``; it may return
        ``(new_args, new_kwargs)``."""
        return _add_hook(self._optimizer_step_pre_hooks, hook, False)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` after ``step``."""
        return _add_hook(self._optimizer_step_post_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook: Callable[..., Any],
                                     prepend: bool = False) -> RemovableHandle:
        """Run ``hook(optimizer)`` before ``state_dict`` builds its dict."""
        return _add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable[..., Any],
                                      prepend: bool = False) -> RemovableHandle:
        """Run ``hook(optimizer, state_dict)`` after ``state_dict``; a dict it returns replaces
        the result."""
        return _add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable[..., Any],
                                          prepend: bool = False) -> RemovableHandle:
        """Run ``hook(optimizer, state_dict)`` before loading; a dict it returns is loaded."""
        return _add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable[..., Any],
                                           prepend: bool = False) -> RemovableHandle:
        """Run ``hook(optimizer)`` after ``load_state_dict``."""
        return _add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # -- state dicts --------------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``.

        Parameters are numbered in group order, as PyTorch does; state tensors
        are references, not copies.
        """
        for pre in list(self._optimizer_state_dict_pre_hooks.values()):
            pre(self)
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                 for k, v in self.state.items()}
        result: dict[str, Any] = {"state": state, "param_groups": groups}
        for post in list(self._optimizer_state_dict_post_hooks.values()):
            replaced = post(self, result)
            if replaced is not None:
                result = replaced
        return result

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore hyper-parameters and state saved by ``state_dict`` (tensors are copied).

        Saved parameter ``i`` is matched to this optimizer's ``i``-th parameter
        in group order, as PyTorch does.
        """
        state_dict = dict(state_dict)
        for pre in list(self._optimizer_load_state_dict_pre_hooks.values()):
            replaced = pre(self, state_dict)
            if replaced is not None:
                state_dict = replaced
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = {old: p for g, s in zip(groups, saved_groups)
                  for old, p in zip(s["params"], g["params"])}
        policy = {old: (bool(s.get("capturable")) or bool(s.get("fused")))
                  for s in saved_groups for old in s["params"]}
        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = _cast(param, v, float32_step=policy[k])
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
        for post in list(self._optimizer_load_state_dict_post_hooks.values()):
            post(self)

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        if "_optimizer_step_pre_hooks" not in self.__dict__:  # unpickled: hooks are not saved
            self._init_hooks()
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(group):
                if key != "params":
                    lines.append(f"    {key}: {group[key]}")
        lines.append(")")
        return "\n".join(lines)


def _cast(param: Tensor, value: Any, key: str | None = None, *,
          float32_step: bool = False) -> Any:
    """A copy of ``value`` with tensors in ``param``'s dtype (when ``param`` is floating) and
    device, as PyTorch's ``_process_value_according_to_param_policy``: ``step`` keeps its
    dtype, except that a capturable or fused group's ``step`` becomes float32."""
    if isinstance(value, Tensor):
        out = value.detach().clone()
        if out.device != param.device:
            out = out.to(param.device)
        if key == "step":
            if float32_step:
                out = out.to(_dt.float32)
        elif param.is_floating_point() and out.is_floating_point():
            out = out.to(param.dtype)
        return out
    if isinstance(value, dict):
        return {k: _cast(param, v, k, float32_step=float32_step) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v, float32_step=float32_step) for v in value)
    return value
