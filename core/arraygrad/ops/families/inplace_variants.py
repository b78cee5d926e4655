"""The in-place ``Tensor`` methods PyTorch has for ops defined elsewhere: elementwise
(``sin_``, ``floor_``, ``eq_`` ...: computed out of place, then written back and recorded as any
in-place op, comparisons cast to the tensor's own dtype as PyTorch does), and the in-place view
ops (``unsqueeze_``, ``squeeze_``, ``t_``, ``transpose_``, ``swapaxes_``, ``swapdims_``), which
change the tensor's shape and make it the view the out-of-place op would return.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.autograd.grad_mode import is_grad_enabled
from arraygrad.tensor import Tensor

__all__ = ["INPLACE", "METHODS"]


def _core(name: str) -> Callable[..., Any]:
    """The namespace function ``arraygrad.<name>``, looked up once, when first called (the
    namespace is still being built while op families load)."""
    found: list[Callable[..., Any]] = []

    def call(*args: Any, **kwargs: Any) -> Any:
        if not found:
            import arraygrad

            found.append(getattr(arraygrad, name))
        return found[0](*args, **kwargs)

    call.__name__ = name
    return call


# in-place name -> the function computing the out-of-place result
INPLACE: dict[str, Callable[..., Any]] = {
    f"{name}_": _core(name) for name in (
        "absolute", "bitwise_not", "ceil", "cos", "cumsum", "divide", "eq", "expm1", "floor",
        "ge", "greater", "greater_equal", "gt", "le", "less", "less_equal", "log1p",
        "logical_and", "logical_not", "logical_or", "logical_xor", "lt", "multiply", "ne",
        "negative", "not_equal", "sin", "subtract", "tan", "true_divide", "trunc", "erf",
        "erfc", "erfinv", "bitwise_and", "bitwise_or", "bitwise_xor")
}


def _view_inplace(name: str) -> Callable[..., Tensor]:
    """``Tensor.<name>_``: ``self`` becomes ``self.<name>(...)`` (same data, new shape)."""
    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        if is_grad_enabled() and self._requires_grad and self._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        out = getattr(self, name)(*args, **kwargs)  # checks its arguments; self is untouched
        self._data = out._data
        self._strides = out._strides
        if out._base is self:  # self was no view: it stays none (not a view of itself)
            self._base, self._view = None, None
        else:  # a view stays a view of the same base, now replayed with this op too
            self._base, self._view = out._base, out._view
        if out._grad_fn is not None:
            self._grad_fn, self._output_nr = out._grad_fn, out._output_nr
        return self

    method.__name__ = f"{name}_"
    method.__doc__ = f"In-place ``{name}``: this tensor takes the new shape; returns self."
    return method


METHODS: dict[str, Callable[..., Any]] = {
    **{f"{name}_": _view_inplace(name) for name in (
        "unsqueeze", "squeeze", "t", "transpose", "swapaxes", "swapdims")},
    **{name: _core(name) for name in ("bitwise_and", "bitwise_or", "bitwise_xor")},
}
