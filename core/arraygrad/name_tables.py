"""Tables of functions by name, filled by a decorator: the shape rules of the meta device,
vmap's batching rules, ONNX export's entries. One decorator maker serves them all."""

from __future__ import annotations

from typing import Callable, TypeVar

__all__ = ["registrar"]

F = TypeVar("F", bound=Callable[..., object])


def registrar(table: dict[str, F], doc: str) -> Callable[..., Callable[[F], F]]:
    """A decorator factory: ``under(*names)`` registers the decorated function in ``table``
    under each of ``names`` and returns it unchanged. ``doc`` becomes its docstring."""
    def under(*names: str) -> Callable[[F], F]:
        def register(fn: F) -> F:
            for name in names:
                table[name] = fn
            return fn
        return register
    under.__doc__ = doc
    return under
