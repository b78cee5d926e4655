"""``arraygrad.utils.hooks``: PyTorch's ``torch.utils.hooks``: the handle every
``register_*hook`` returns, the module backward-hook machinery, and the markers for hooks that
are not saved with a tensor."""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

from arraygrad.autograd.hooks import RemovableHandle
from arraygrad.nn.modules._backward_hook import BackwardHook

__all__ = ["BackwardHook", "RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]

_F = TypeVar("_F")


def unserializable_hook(f: _F) -> _F:
    """Mark hook ``f`` as one that is not saved with its tensor (``warn_if_has_hooks`` then
    stays quiet about it)."""
    f.__torch_unserializable__ = True  # type: ignore[attr-defined]
    return f


def warn_if_has_hooks(tensor: Any) -> None:
    """Warn for each backward hook of ``tensor`` not marked ``unserializable_hook``: saving a
    tensor does not save its hooks."""
    fn = tensor.grad_fn
    hooks = tensor._hooks if fn is None else fn._tensor_hooks(tensor._output_nr)
    for hook in (hooks or {}).values():
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {repr(hook)} on tensor will not be serialized.  If this "
                          "is expected, you can decorate the function with "
                          "@torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)
