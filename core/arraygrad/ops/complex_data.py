"""Complex arrays from their parts, through the Array API (``xp.real``/``xp.imag`` take them
apart; the standard has no constructor from parts, so one is built here once)."""

from __future__ import annotations

from typing import Any

__all__ = ["join", "complex_native"]


def complex_native(backend: Any, real_native: Any) -> Any:
    """The native complex dtype whose parts are of ``real_native`` (float32 -> complex64)."""
    return backend.native_dtype(backend.arraygrad_dtype(real_native).to_complex())


def join(backend: Any, real: Any, imag: Any) -> Any:
    """The complex array ``real + i * imag`` of two real floating arrays of one dtype (either
    may broadcast against the other); its dtype is that dtype's complex type."""
    xp = backend.xp
    native = complex_native(backend, real.dtype)
    # astype real -> complex is defined by the standard; a complex array times a Python complex
    # scalar too (a real array times one is not)
    return xp.astype(real, native) + xp.astype(imag, native) * 1j

