"""A settings namespace like PyTorch's ``torch._dynamo.config``: known names with defaults,
``patch`` for a block or a function, and PyTorch's AttributeError for an unknown name."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Iterator

__all__ = ["ConfigNamespace"]


class ConfigNamespace:
    """Settings ``name -> value``; a name may be a ``(getter, setter)`` pair reaching a real
    setting elsewhere, or a nested namespace (``triton.cudagraphs``)."""

    def __init__(self, qualname: str, defaults: dict[str, Any],
                 linked: dict[str, tuple[Callable[[], Any], Callable[[Any], None]]] | None = None) -> None:
        object.__setattr__(self, "_qualname", qualname)
        object.__setattr__(self, "_values", dict(defaults))
        object.__setattr__(self, "_linked", dict(linked or {}))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        linked = self._linked.get(name)
        if linked is not None:
            return linked[0]()
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"{self._qualname}.{name} does not exist") from None

    def __setattr__(self, name: str, value: Any) -> None:
        linked = self._linked.get(name)
        if linked is not None:
            linked[1](value)
            return
        if name not in self._values:
            raise AttributeError(f"{self._qualname}.{name} does not exist")
        self._values[name] = value

    def __dir__(self) -> list[str]:
        return sorted(set(self._values) | set(self._linked))

    @contextlib.contextmanager
    def _patched(self, changes: dict[str, Any]) -> Iterator[None]:
        saved = {name: getattr(self, name) for name in changes}
        for name, value in changes.items():
            setattr(self, name, value)
        try:
            yield
        finally:
            for name, value in saved.items():
                setattr(self, name, value)

    def patch(self, arg: dict[str, Any] | str | None = None, value: Any = None, **kwargs: Any) -> Any:
        """The settings changed for a ``with`` block or a decorated function:
        ``patch(name, value)``, ``patch({name: value})`` or ``patch(name=value)``."""
        changes: dict[str, Any] = dict(kwargs)
        if isinstance(arg, str):
            changes[arg] = value
        elif isinstance(arg, dict):
            changes.update(arg)
        for name in changes:
            getattr(self, name)  # AttributeError now for an unknown name
        namespace = self

        class _Patch(contextlib.ContextDecorator):
            def __enter__(self) -> None:
                self._cm = namespace._patched(changes)
                self._cm.__enter__()

            def __exit__(self, *exc: Any) -> None:
                self._cm.__exit__(*exc)

        return _Patch()

    def __repr__(self) -> str:
        return f"<settings {self._qualname}>"

