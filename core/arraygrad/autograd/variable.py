"""``Variable``: the pre-0.4 wrapper, kept as a deprecated alias of Tensor."""

from __future__ import annotations

import warnings
from typing import Any

from arraygrad.autograd.engine import execution_engine


__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> Any:
        from arraygrad.tensor import Tensor

        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(t, requires_grad=False)`` returns a Tensor sharing ``t``'s data.

    Deprecated since PyTorch 0.4: tensors record gradients themselves.
    ``volatile=`` is accepted with a warning and has no effect (use ``no_grad``).

    ``Variable._execution_engine`` is the autograd engine's handle, as in PyTorch:
    ``Variable._execution_engine.queue_callback(fn)`` runs ``fn()`` at the end of
    the backward pass now running (see ``engine.queue_callback``).
    """

    _execution_engine = execution_engine

    def __new__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Any:
        from arraygrad.tensor import Tensor

        warnings.warn("arraygrad.autograd.Variable is deprecated: tensors support autograd "
                      "directly; use the tensor itself.", DeprecationWarning, stacklevel=2)
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with "
                          "arraygrad.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            from arraygrad.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        out._vc = None  # a Variable is a new leaf, not an alias for in-place tracking
        if requires_grad:
            out.requires_grad_(True)
        return out
