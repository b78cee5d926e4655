"""Per-backend kernels: ``scipy.special`` for NumPy (and ``erf`` of float32 and float64 arrays
in NumPy passes: ``erf_float32``, ``erf_float64``), ``cupyx.scipy.special`` for CuPy.

Kernels are registered as small wrappers that import their library on first call, so loading
the plugin imports neither SciPy (about 0.3 s) nor CuPy. A wrapper returns ``NotImplemented``
if its library turns out not to import; the op then runs arraygrad's portable code.

Kernels take and return native arrays. The result is cast back to the first argument's dtype,
because some SciPy functions (``i0``, ``k0``, ...) only have float64 loops and would otherwise
silently promote float32 inputs. Only functions whose values agree with PyTorch's everywhere,
edges included, are registered (``polygamma`` and ``zeta`` are not: SciPy's differ from
PyTorch's at +-inf and at the poles); ``lgamma``'s result is corrected where SciPy's differs
(``gammaln(-inf)`` is -inf and ``gammaln`` of a subnormal is inf in SciPy, inf and
``-log|x|`` in PyTorch).
"""

from __future__ import annotations

import importlib
import importlib.util

__all__ = ["SCIPY_NAMES", "numpy_erf_first", "lazy_kernel", "numpy_kernels", "cupy_kernels"]

SCIPY_NAMES = {
    "erf": "erf", "erfc": "erfc", "erfinv": "erfinv", "lgamma": "gammaln", "digamma": "psi",
    "i0": "i0", "i1": "i1", "i0e": "i0e", "i1e": "i1e", "ndtr": "ndtr", "log_ndtr": "log_ndtr",
    "ndtri": "ndtri", "erfcx": "erfcx", "entr": "entr", "igamma": "gammainc",
    "igammac": "gammaincc", "modified_bessel_i0": "i0", "modified_bessel_i1": "i1",
    "modified_bessel_k0": "k0", "modified_bessel_k1": "k1", "scaled_modified_bessel_k0": "k0e",
    "scaled_modified_bessel_k1": "k1e", "bessel_j0": "j0", "bessel_j1": "j1", "bessel_y0": "y0",
    "bessel_y1": "y1",
}
"""arraygrad op name -> function name in ``scipy.special`` / ``cupyx.scipy.special``."""

_MISSING = object()


def _fix_lgamma(xp, x, out):
    """PyTorch's lgamma where SciPy's differs: +inf at -inf, ``-log|x|`` for subnormal x."""
    tiny = (xp.abs(x) < 1e-300) & (x != 0)
    out = xp.where(tiny, -xp.log(xp.where(tiny, xp.abs(x), 1.0)), out)
    return xp.where(x == -xp.inf, xp.inf, out)


FIXES = {"lgamma": _fix_lgamma}
"""op name -> ``fix(xp, first argument, result)``: PyTorch's values where the library's differ."""


def lazy_kernel(module: str, attr: str, as_array, fix=None, array_module: str = "numpy"):
    """A kernel calling ``module.attr`` (imported on first use); ``as_array`` fixes the result.

    ``as_array(result, like)`` turns the library's result (NumPy returns scalars for 0-d
    input) into an array of ``like``'s dtype, ``like`` being the first argument; ``fix(xp,
    like, result)`` then corrects the values that differ from PyTorch's, ``xp`` being
    ``array_module`` (``numpy`` or ``cupy``).
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
        out = as_array(fn(*args), args[0])
        if fix is not None:
            out = fix(importlib.import_module(array_module), args[0], out)
        return out

    kernel.__name__ = kernel.__qualname__ = f"{attr}_kernel"
    kernel.__doc__ = f"``{module}.{attr}`` on native arrays (imported on first call)."
    return kernel


def _numpy_result(out, like):
    import numpy as np

    out = np.asarray(out)
    return out if out.dtype == like.dtype else out.astype(like.dtype)


def _cupy_result(out, like):
    return out if out.dtype == like.dtype else out.astype(like.dtype)


def numpy_erf_first(scipy_erf):
    """The NumPy backend's ``erf`` kernel: ``erf_float32`` and ``erf_float64`` (NumPy passes)
    for every float32 and float64 array, ``scipy_erf`` for the other dtypes (``NotImplemented``
    without SciPy, ``scipy_erf`` None: the core's portable erf then runs).

    SciPy's loops are faster on small arrays (7 against 25 us on 1,024 float32 values, 6
    against 60 on 1,000 float64 ones), but one call would import ``scipy.special`` (0.2-0.3 s:
    a short program's whole time in erf, many times over), and switching by size would make
    an element's erf depend on its array's size."""
    from arraygrad_special.erf_float32 import FLOAT32, erf_float32
    from arraygrad_special.erf_float64 import FLOAT64, erf_float64

    def kernel(x):
        dtype = x.dtype
        if dtype == FLOAT32:
            return erf_float32(x)
        if dtype == FLOAT64:
            return erf_float64(x)
        return NotImplemented if scipy_erf is None else scipy_erf(x)

    kernel.__name__ = kernel.__qualname__ = "erf_kernel"
    return kernel


def numpy_kernels() -> dict:
    """NumPy's kernels by op name: SciPy's (``{}`` for those when SciPy is not installed), and
    ``erf`` of float32 and float64 arrays in NumPy passes (``numpy_erf_first``).

    Only SciPy's presence is checked here (``find_spec`` imports nothing).
    """
    if importlib.util.find_spec("scipy") is None:
        return {"erf": numpy_erf_first(None)}
    kernels = {op: lazy_kernel("scipy.special", name, _numpy_result, FIXES.get(op))
               for op, name in SCIPY_NAMES.items()}
    kernels["erf"] = numpy_erf_first(kernels["erf"])
    return kernels


def cupy_kernels() -> dict:
    """``cupyx.scipy.special`` kernels by op name (CuPy is imported only when one runs).

    They run only on CuPy arrays, i.e. once CuPy is already in use, so no check is needed
    here; if ``cupyx.scipy.special`` cannot be imported they defer to the portable code.
    """
    return {op: lazy_kernel("cupyx.scipy.special", name, _cupy_result, FIXES.get(op), "cupy")
            for op, name in SCIPY_NAMES.items()}
