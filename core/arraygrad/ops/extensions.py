"""The Array API standard's optional extensions (``xp.linalg``, ``xp.fft``) of a backend."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["extension"]


def extension(op: str, backend: Backend, name: str) -> Any:
    """``backend.xp.<name>`` (``"linalg"``, ``"fft"``), or a RuntimeError naming the op and the
    backend whose namespace lacks it."""
    ext = getattr(backend.xp, name, None)
    if ext is None:
        raise RuntimeError(f"{op}: the {backend.name!r} backend's array namespace has no "
                           f"Array API {name} extension")
    return ext
