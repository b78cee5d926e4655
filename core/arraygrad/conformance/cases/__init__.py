
from typing import Any
"""The built-in ops' conformance cases, as data, one module per op family.

``BUILTIN_CASES`` is the table every backend is checked against (and the one
``tests/ops/test_gradcheck_ops.py`` runs); adding an op here adds its checks
for every backend at once.
"""

from arraygrad.conformance.cases import (activation, arithmetic, indexing, linalg, reduction,
                                         shape, unary)

_CORE = (arithmetic, linalg, unary, reduction, shape, indexing, activation)


def _family_cases() -> tuple[Any, ...]:
    """The ``CASES`` of every other module in this package (one per op family, found by
    name: adding a family's cases is adding a file)."""
    import importlib
    import pkgutil

    core = {m.__name__ for m in _CORE}
    cases: tuple[Any, ...] = ()
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        name = f"{__name__}.{info.name}"
        if info.name.startswith("_") or name in core:
            continue
        cases += tuple(importlib.import_module(name).CASES)
    return cases


BUILTIN_CASES = tuple(c for m in _CORE for c in m.CASES) + _family_cases()
"""Every built-in op's cases, in report order."""

__all__ = ["BUILTIN_CASES"]
