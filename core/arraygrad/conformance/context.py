"""``Context``: the backend under test, its capabilities, its expected failures and its cases."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["Context", "make_context", "all_cases"]


@dataclass
class Context:
    """Everything a check needs to know about the backend under test."""

    name: str
    backend: Backend
    device: Any  # an arraygrad.device
    dtypes: tuple[Any, ...]
    float64: bool
    device_types: tuple[Any, ...]
    lacks: dict[Any, Any]  # {dtype name: reason}: the arraygrad dtypes the backend declares it lacks
    xfail: dict[Any, Any]
    cases: tuple[Any, ...]
    values: bool = True  # False: arrays are shapes and dtypes only (meta): no value checks

    @property
    def float(self) -> Any:
        """The dtype checks run in: float64 where the backend has it, else float32."""
        import arraygrad as ag

        return ag.float64 if self.float64 else ag.float32

    @property
    def is_reference(self) -> bool:
        """Whether the backend is the cpu device itself (the reference's own device)."""
        return self.backend.device_type == "cpu"

    def require_values(self, what: str) -> None:
        """Skip the check when the backend holds no values (``capabilities["values"]``
        False: the meta device), saying what it would read."""
        if not self.values:
            import pytest

            pytest.skip(f"{what} reads values, and the {self.name!r} backend holds none "
                        "(capabilities['values'] is False)")


def all_cases(declarations: Any) -> tuple[Any, ...]:
    """Built-in cases, plus plugin ops' ``cases`` and ``register.cases(...)`` contributions."""
    from arraygrad.conformance.cases import BUILTIN_CASES
    from arraygrad.plugins import registry

    cases = list(BUILTIN_CASES)
    for op in registry.ops().values():
        cases.extend(op.cases)
    cases.extend(declarations.cases)
    seen = set()
    for c in cases:
        if c.name in seen:
            raise ValueError(f"duplicate conformance case name {c.name!r}")
        seen.add(c.name)
    return tuple(cases)


def make_context(name: str, declarations: Any) -> Context:
    """The context for backend ``name``; RuntimeError if it is missing or unavailable."""
    from arraygrad.backends import get_backend

    backend = get_backend(name)
    decl = declarations.backends.get(name)
    caps = dict(decl.capabilities) if decl else {}
    dtypes = tuple(caps.get("dtypes") or (d.name for d in backend.supported_dtypes()))
    return Context(
        name=name, backend=backend, device=backend.device, dtypes=dtypes,
        float64=bool(caps.get("float64", "float64" in dtypes)),
        device_types=tuple(caps.get("device_types") or (backend.device_type,)),
        lacks=dict(caps.get("lacks") or {}),
        xfail=dict(decl.xfail) if decl else {}, cases=all_cases(declarations),
        values=bool(caps.get("values", backend.holds_data)))
