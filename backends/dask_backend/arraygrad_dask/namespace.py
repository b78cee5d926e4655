"""The Dask backend's namespace: array-api-compat's Dask namespace, with ``linalg.inv``
keeping its input's dtype (Dask's own inverts through a float64 identity, so a float32 matrix
came back float64: ``linalg.matrix_power(A, -2)`` of a float32 ``A`` was float64)."""

from __future__ import annotations

import types
from typing import Any

__all__ = ["dask_namespace"]


def dask_namespace() -> Any:
    """A copy of ``array_api_compat.dask.array`` whose ``linalg.inv`` keeps the dtype."""
    import array_api_compat.dask.array as compat

    ns = types.ModuleType(compat.__name__, compat.__doc__)
    ns.__dict__.update({k: v for k, v in vars(compat).items() if not k.startswith("__")})
    ns.__array_api_version__ = compat.__array_api_version__
    linalg = types.ModuleType(compat.linalg.__name__, compat.linalg.__doc__)
    linalg.__dict__.update({k: v for k, v in vars(compat.linalg).items()
                            if not k.startswith("__")})
    linalg.inv = _dtype_kept(compat.linalg.inv, compat.astype)
    ns.linalg = linalg
    return ns


def _dtype_kept(inv: Any, astype: Any) -> Any:
    def kept(x: Any, /) -> Any:
        """``inv(x)`` in ``x``'s dtype (Dask's computes a float32 matrix's in float64)."""
        out = inv(x)
        return out if out.dtype == x.dtype else astype(out, x.dtype)

    kept.__name__ = kept.__qualname__ = "inv"
    return kept
