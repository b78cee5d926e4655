"""``nn.Parameter``: a tensor a ``Module`` registers as one of its parameters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Self

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad import dtypes as _dt
    from arraygrad.device import DeviceLike
    from arraygrad.nn.modules.module import Module

__all__ = ["Parameter", "optional_parameter"]


class Parameter(Tensor):
    """A leaf tensor that, assigned as a ``Module`` attribute, joins ``parameters()``.

    ``Parameter(data)`` shares ``data``'s memory (and version counter) and
    requires grad by default.

    >>> p = Parameter(arraygrad.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> Self:
        if data is None:
            from arraygrad.creation import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        p = object.__new__(cls)
        p._init_from(data._data, data._backend)
        # an alias of data, as PyTorch's _make_subclass; the ignore: tensor.py's untyped code
        # leaves mypy inferring Tensor._vc as None (typed after the issue-11 merge)
        p._vc = data._version_counter()
        if requires_grad:
            p.requires_grad_(True)
        return p

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        # everything happens in __new__; Tensor.__init__ (the legacy constructor) must not run
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            return memo[id(self)]
        result = Parameter(self._detached_copy(), self._requires_grad)
        if self._grad is not None:
            result._grad = self._grad._detached_copy()
        memo[id(self)] = result
        return result


def optional_parameter(module: Module, name: str, wanted: bool, *shape: int,
                       dtype: _dt.dtype | None = None, device: DeviceLike | None = None) -> None:
    """Register ``module.<name>`` as an uninitialised Parameter of ``shape`` when ``wanted``,
    else as None (so it is listed, as PyTorch lists ``bias=False`` layers' ``bias``)."""
    if wanted:
        from arraygrad.creation import empty

        setattr(module, name, Parameter(empty(*shape, dtype=dtype, device=device)))
    else:
        module.register_parameter(name, None)
