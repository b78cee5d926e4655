"""``arraygrad.special``: PyTorch's ``torch.special``, every function the core's own.

Each function runs portable Array API code (``arraygrad.ops._special``: series, continued
fractions and Chebyshev fits in float64), so it exists on every backend; an op plugin may
register a faster kernel per backend for it (``registry.kernel(name, backend, fn)``, as the
``arraygrad-special`` distribution does with SciPy and cupyx), which the op runs when present.
Functions PyTorch also has at the top level (``erf``, ``lgamma`` as ``gammaln`` ...) are the
same objects as ``arraygrad.<name>``. A plugin's op registered under the ``special`` namespace
is found here too.
"""

from __future__ import annotations

from typing import Any, Callable

import arraygrad as _ag
from arraygrad.ops.families import math_bessel as _bessel, math_gamma as _gamma
from arraygrad.ops.families import math_normal as _normal, math_special as _math
from arraygrad.ops.families.math_polynomials import POLYNOMIALS as _POLYNOMIALS
from arraygrad.ops.out_arg import accepts_out as _accepts_out
from arraygrad.tensor import Tensor

_FROM_NAMESPACE = {
    "digamma": "digamma", "psi": "digamma", "erf": "erf", "erfc": "erfc", "erfinv": "erfinv",
    "exp2": "exp2", "expit": "sigmoid", "expm1": "expm1", "gammaln": "lgamma", "i0": "i0", "log1p": "log1p",
    "log_softmax": "log_softmax", "logit": "logit", "logsumexp": "logsumexp",
    "multigammaln": "mvlgamma", "polygamma": "polygamma", "round": "round", "sinc": "sinc",
    "softmax": "softmax", "xlogy": "xlogy",
}
"""``torch.special`` names that are ``arraygrad.<name>`` functions (already taking ``out=``)."""

_OWN: dict[str, Callable[..., Any]] = {
    "i0e": _bessel.i0e, "i1": _bessel.i1, "i1e": _bessel.i1e, "ndtr": _normal.ndtr,
    "log_ndtr": _normal.log_ndtr, "ndtri": _normal.ndtri, "erfcx": _normal.erfcx,
    "entr": _math.entr, "xlog1py": _math.xlog1py, "zeta": _gamma.zeta,
    "gammainc": _gamma.gammainc, "gammaincc": _gamma.gammaincc,
    **_bessel.NOT_DIFFERENTIABLE, **_POLYNOMIALS,
}
"""``torch.special``'s own functions (no top-level ``torch`` counterpart)."""

globals().update({name: getattr(_ag, target) for name, target in _FROM_NAMESPACE.items()})
globals().update({name: _accepts_out(fn) for name, fn in _OWN.items()})

__all__ = ["Tensor", *sorted(_FROM_NAMESPACE), *sorted(_OWN)]


def __getattr__(name: str) -> Any:
    """An op a plugin registered under the ``special`` namespace."""
    from arraygrad.absences import missing_attribute
    from arraygrad.plugins.registry import namespace_op

    if name.startswith("__"):
        raise AttributeError(name)
    try:
        return namespace_op("special", name)
    except AttributeError:
        raise missing_attribute("torch.special", name, "arraygrad.special") from None


def __dir__() -> Any:
    from arraygrad.plugins.registry import ops

    return sorted(set(__all__) | {op.name for op in ops().values() if op.namespace == "special"})
