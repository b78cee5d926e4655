"""``arraygrad.special``: special functions.

``erf`` is the core's own op (``gelu`` uses it too), always present; an op
plugin may register faster per-backend kernels for it (``registry.kernel("erf",
...)``), never a second erf. The other names (``erfc``, ``lgamma``, ...) resolve
through the op registry, so they exist once the ``arraygrad-special``
distribution is installed (``pip install arraygrad-special``, or ``make`` in
this repository). Without it, each raises an AttributeError saying so.
"""

from __future__ import annotations

import importlib
from typing import Any

DISTRIBUTION = "arraygrad-special"
KNOWN = ("erfc", "erfinv", "lgamma", "gammaln", "digamma", "psi", "polygamma", "i0", "i1",
         "xlogy", "logit", "expit")
"""The names the ``arraygrad-special`` distribution provides."""

CORE = {"erf": "arraygrad.nn._ops"}
"""The core's own special functions, by name -> defining module (imported on first use:
``import arraygrad.special`` stays cheap). Looked up before the registry, so an op
plugin that needs the core's erf can import it while plugins are still registering."""


def __getattr__(name: str) -> Any:
    from arraygrad.plugins.registry import namespace_op

    if name.startswith("__"):
        raise AttributeError(name)
    module = CORE.get(name)
    if module is not None:
        return getattr(importlib.import_module(module), name)
    try:
        return namespace_op("special", name)
    except AttributeError:
        hint = (f"; it is provided by the {DISTRIBUTION!r} distribution: pip install {DISTRIBUTION}"
                if name in KNOWN else "")
        raise AttributeError(f"module 'arraygrad.special' has no attribute {name!r}{hint}") from None


def __dir__() -> Any:
    from arraygrad.plugins.registry import ops

    return sorted(set(CORE) | {op.name for op in ops().values() if op.namespace == "special"})
