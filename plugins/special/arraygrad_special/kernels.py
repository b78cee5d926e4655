"""Per-backend kernels: ``scipy.special`` for NumPy, ``cupyx.scipy.special`` for CuPy.

Kernels are registered as small wrappers that import their library on first
call, so loading the plugin imports neither SciPy (about 0.3 s) nor CuPy. A
wrapper returns ``NotImplemented`` if its library turns out not to import;
the op then uses the portable implementation (see ``ops._forward``).

Kernels take and return native arrays. The result is cast back to the
input's dtype, because some SciPy functions (``i0``, ``polygamma``) only have
float64 loops and would otherwise silently promote float32 inputs.
``polygamma``'s kernel receives its order ``n`` as a 0-d array of the input's
dtype on the input's device (``ops._forward`` makes it): cupyx's polygamma
cannot take a Python int.

The ``erf`` kernels serve the core's own ``erf`` op (``arraygrad.special.erf``),
which runs a registered kernel and falls back to its portable code when the
kernel returns ``NotImplemented``.
"""

from __future__ import annotations

import importlib
import importlib.util

__all__ = ["SCIPY_NAMES", "lazy_kernel", "numpy_kernels", "cupy_kernels"]

SCIPY_NAMES = {
    "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "lgamma": "gammaln", "digamma": "psi",
    "polygamma": "polygamma", "i0": "i0", "i1": "i1", "xlogy": "xlogy", "logit": "logit",
    "expit": "expit",
}
"""Op name -> function name in ``scipy.special`` / ``cupyx.scipy.special``."""

_MISSING = object()


def lazy_kernel(module: str, attr: str, as_array):
    """A kernel calling ``module.attr`` (imported on first use); ``as_array`` fixes the result.

    ``as_array(result, like)`` turns the library's result (NumPy returns scalars for
    0-d input) into an array of ``like``'s dtype, ``like`` being the last array argument.
    """
    cache = {}

    def kernel(*args):
        fn = cache.get("fn")
        if fn is None:
            try:
                fn = getattr(importlib.import_module(module), attr)
            except (ImportError, AttributeError):
                fn = _MISSING
            cache["fn"] = fn
        if fn is _MISSING:
            return NotImplemented
        return as_array(fn(*args), args[-1])

    kernel.__name__ = kernel.__qualname__ = f"{attr}_kernel"
    kernel.__doc__ = f"``{module}.{attr}`` on native arrays (imported on first call)."
    return kernel


def _numpy_result(out, like):
    import numpy as np

    out = np.asarray(out)
    return out if out.dtype == like.dtype else out.astype(like.dtype)


def _cupy_result(out, like):
    return out if out.dtype == like.dtype else out.astype(like.dtype)


def numpy_kernels() -> dict:
    """SciPy kernels by op name, or ``{}`` when SciPy is not installed.

    Only SciPy's presence is checked here (``find_spec`` imports nothing).
    """
    if importlib.util.find_spec("scipy") is None:
        return {}
    return {op: lazy_kernel("scipy.special", name, _numpy_result)
            for op, name in SCIPY_NAMES.items()}


def cupy_kernels() -> dict:
    """``cupyx.scipy.special`` kernels by op name (CuPy is imported only when one runs).

    They run only on CuPy arrays, i.e. once CuPy is already in use, so no check is needed
    here; if ``cupyx.scipy.special`` cannot be imported they defer to the portable code.
    """
    return {op: lazy_kernel("cupyx.scipy.special", name, _cupy_result)
            for op, name in SCIPY_NAMES.items()}
