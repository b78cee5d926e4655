"""``LazyModuleMixin``: a layer whose input size is inferred from its first call.

A lazy layer holds ``UninitializedParameter``/``UninitializedBuffer`` until its first
``forward``: a forward pre-hook then calls ``initialize_parameters(*input)``, which
materialises them from the input's shape and draws the layer's usual initial values, and the
module turns into its ``cls_to_become`` (``LazyLinear`` -> ``Linear``), as in PyTorch. The
parameters stay the same objects, but build the optimizer after a dry run, as PyTorch's
documentation says. ``load_state_dict`` materialises them with the checkpoint's shapes.
"""

from __future__ import annotations

import itertools
from typing import Any

from arraygrad.nn.parameter import is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Mixed in before the layer class: ``class LazyLinear(LazyModuleMixin, Linear)``.

    A subclass defines ``initialize_parameters(self, input)`` and ``cls_to_become``.
    """

    cls_to_become: type | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        module: Any = self
        # the hook's id, not its handle (which holds weak references): a lazy module pickles
        module._initialize_hook_id = module.register_forward_pre_hook(
            self._infer_parameters, with_kwargs=True).id

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str,
                            keep_vars: bool) -> None:
        # an uninitialised tensor is saved as itself (it has no data to detach)
        module: Any = self
        for name, param in module._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars \
                    else param.detach()
        for name, buf in module._buffers.items():
            if buf is not None and name not in module._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def initialize_parameters(self, *args: Any, **kwargs: Any) -> None:
        """Materialise the uninitialised parameters from the first input (per layer)."""
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any of this module's own parameters or buffers is still uninitialised."""
        module: Any = self
        return any(is_lazy(t) for t in itertools.chain(module._parameters.values(),
                                                        module._buffers.values()))

    def _infer_parameters(self, module: Any, args: Any, kwargs: Any = None) -> None:
        """The forward pre-hook: initialise from the first input, then become
        ``cls_to_become``."""
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {module._get_name()} has not been fully initialized")
        hook_id = module._initialize_hook_id
        module._forward_pre_hooks.pop(hook_id, None)
        module._forward_pre_hooks_with_kwargs.pop(hook_id, None)
        delattr(module, "_initialize_hook_id")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self) -> Any:
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize the "
                           "modules")
