"""``arraygrad.special``: special functions, provided by the ``arraygrad-special`` op plugin.

The names resolve through the op registry, so they exist once the plugin
distribution is installed (``pip install arraygrad-special``, or ``make`` in
this repository). Without it, each name raises an AttributeError saying so.
"""

from __future__ import annotations

DISTRIBUTION = "arraygrad-special"
KNOWN = ("erf", "erfc", "erfinv", "lgamma", "gammaln", "digamma", "psi", "polygamma", "i0", "i1",
         "xlogy", "logit", "expit")


def __getattr__(name: str):
    from arraygrad.plugins.registry import namespace_op

    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return namespace_op("special", name)
    except AttributeError:
        hint = (f"; it is provided by the {DISTRIBUTION!r} distribution: pip install {DISTRIBUTION}"
                if name in KNOWN else "")
        raise AttributeError(f"module 'arraygrad.special' has no attribute {name!r}{hint}") from None


def __dir__():
    from arraygrad.plugins.registry import ops

    return sorted(op.name for op in ops().values() if op.namespace == "special")
