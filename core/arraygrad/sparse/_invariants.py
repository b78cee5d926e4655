"""``torch.sparse.check_sparse_tensor_invariants`` and ``as_sparse_gradcheck``.

arraygrad checks a COO tensor's indices against its size always (``_creation``), so the
switch changes no check; it keeps PyTorch's state, context manager and decorator so programs
that set it run unchanged.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from arraygrad.tensor import Tensor
from arraygrad.tensor_sparse import SparseTensor

__all__ = ["check_sparse_tensor_invariants", "as_sparse_gradcheck"]

_enabled = [False]


class check_sparse_tensor_invariants:
    """PyTorch's switch of sparse invariant checks, as a context manager, a decorator, or
    ``enable()``/``disable()``/``is_enabled()``. arraygrad checks COO indices either way."""

    @staticmethod
    def is_enabled() -> bool:
        """Whether the checks were switched on."""
        return _enabled[0]

    @staticmethod
    def enable() -> None:
        """Switch the checks on (arraygrad's run always)."""
        _enabled[0] = True

    @staticmethod
    def disable() -> None:
        """Switch the checks off (arraygrad still checks COO indices)."""
        _enabled[0] = False

    def __init__(self, enable: bool = True) -> None:
        self.state = enable
        self.saved_state: bool | None = None

    def __enter__(self) -> None:
        if self.saved_state is not None:
            raise RuntimeError("This context manager instance is already activated. Use a "
                               "different context manager instance for context nesting.")
        self.saved_state = _enabled[0]
        _enabled[0] = self.state

    def __exit__(self, *exc: Any) -> None:
        if self.saved_state is None:
            raise AssertionError("saved_state should not be None on exit")
        _enabled[0] = self.saved_state
        self.saved_state = None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with check_sparse_tensor_invariants(self.state):
                return fn(*args, **kwargs)

        return wrapper


def as_sparse_gradcheck(gradcheck: Callable[..., Any]) -> Callable[..., Any]:
    """``gradcheck`` (or ``gradgradcheck``) taking sparse inputs, as PyTorch's: each sparse
    input that requires grad is checked through its coalesced values (the function gets the
    sparse tensor rebuilt from them), and sparse outputs are compared densely."""
    from arraygrad.sparse._creation import sparse_coo_tensor

    def wrapped(func: Callable[..., Any], inputs: Any, **kwargs: Any) -> Any:
        single = isinstance(inputs, Tensor)
        given = (inputs,) if single else tuple(inputs)
        rebuild: list[Any] = []
        flat: list[Any] = []
        for x in given:
            if isinstance(x, SparseTensor) and x.requires_grad:
                c = x.detach().coalesce()
                values = c.values().detach().requires_grad_(True)
                rebuild.append((c.indices(), tuple(x.shape)))
                flat.append(values)
            else:
                rebuild.append(None)
                flat.append(x)

        def dense_func(*args: Any) -> Any:
            rebuilt = [a if how is None else sparse_coo_tensor(how[0], a, how[1],
                                                               is_coalesced=True)
                       for a, how in zip(args, rebuild)]
            out = func(*rebuilt)
            if isinstance(out, (tuple, list)):
                return type(out)(o.to_dense() if isinstance(o, SparseTensor) else o for o in out)
            return out.to_dense() if isinstance(out, SparseTensor) else out

        kwargs.pop("masked", None)
        return gradcheck(dense_func, tuple(flat), **kwargs)

    return wrapped
