"""``OptimizedModule``: what ``arraygrad.compile(module)`` returns, an ``nn.Module`` wrapping
the original one as its child ``_orig_mod`` (PyTorch's ``torch._dynamo.eval_frame.
OptimizedModule``).

It is a real Module so that everything a training script does with a model works on it
unchanged: ``parameters()``, ``train()``/``eval()``, ``to()``, ``state_dict()`` (keys
prefixed ``_orig_mod.`` as PyTorch's are, so checkpoints move between the two),
``load_state_dict``, hooks on the wrapper. Reading or setting any other attribute goes to
the original module, so ``compiled.fc1`` is ``model.fc1``.
"""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad.compiler.compiled import CompiledFunction
from arraygrad.nn.modules import _global_hooks as _g
from arraygrad.nn.modules.module import Module
from arraygrad.transform_state import compile_hooks

__all__ = ["OptimizedModule"]


class OptimizedModule(Module):
    """The module ``arraygrad.compile(module)`` returns: calling it runs the compiled
    ``module.__call__`` (the original's hooks included); ``_orig_mod`` is the original
    module, registered as this one's only child; other attributes are the original's."""

    # names kept on the wrapper itself; everything else is read from / written to _orig_mod
    _opt_mod_attributes = frozenset({"_orig_mod", "forward", "_compiled",
                                     "_super_module_initialized", "__dict__"})

    def __init__(self, mod: Module, compiled: CompiledFunction) -> None:
        # first: Module.__init__ sets attributes, which __setattr__ sends to _orig_mod
        object.__setattr__(self, "_orig_mod", mod)
        object.__setattr__(self, "_super_module_initialized", False)
        super().__init__()
        object.__setattr__(self, "_super_module_initialized", True)
        del self.__dict__["_orig_mod"]
        self._modules["_orig_mod"] = mod
        object.__setattr__(self, "_compiled", compiled)
        object.__setattr__(self, "forward", compiled)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _g._has_any_global_hook():
            warnings.warn(
                "Using `arraygrad.compile(module)` when there are global hooks on modules "
                "(e.g., from `register_module_forward_hook`); this will cause the hooks to "
                "fire an extra time for the `OptimizedModule` created by "
                "`arraygrad.compile(module)`. If this causes undesired behavior, please try "
                "using `module.compile()`, or use the per-module hooks instead", stacklevel=2)
        return super().__call__(*args, **kwargs)

    @property
    def training(self) -> bool:
        """The original module's ``training`` flag (the wrapper has none of its own)."""
        return bool(self._orig_mod.training)

    @training.setter
    def training(self, value: bool) -> None:
        # Module.__init__ sets the default on the wrapper: the original keeps its own
        if self.__dict__.get("_super_module_initialized"):
            self._orig_mod.training = value

    def __getattr__(self, name: str) -> Any:
        if name == "_orig_mod":
            return self.__dict__["_modules"]["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name: str, value: Any) -> None:
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            super().__setattr__(name, value)
            return
        setattr(self._orig_mod, name, value)

    def __delattr__(self, name: str) -> None:
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            super().__delattr__(name)
            return
        delattr(self._orig_mod, name)

    def __len__(self) -> int:
        try:
            return len(self._orig_mod)
        except TypeError:
            raise TypeError(
                f"{type(self._orig_mod).__name__} does not support len()") from None

    def __dir__(self) -> list[str]:
        return sorted(set(dir(self._orig_mod)) | set(super().__dir__()))

    def __reduce__(self) -> Any:
        # the cached programs hold generated code and live arrays: a copy or a pickle is
        # compiled again from the original module, with the same options
        return (_rebuild, (self._orig_mod, self._compiled._fullgraph, self._compiled._dynamic))


def _rebuild(mod: Module, fullgraph: bool, dynamic: bool | None) -> OptimizedModule:
    """An unpickled or copied ``OptimizedModule``: ``mod`` compiled afresh."""
    # (``arraygrad.compile`` through its registered entry: the package imports this module)
    result: OptimizedModule = compile_hooks.compile(mod, fullgraph=fullgraph, dynamic=dynamic)
    return result
