"""``ScalarOperands``: 0-d arrays standing in for Python scalars in arithmetic.

On NumPy, ``array + 1.0`` costs more than twice ``array + array0d`` on small
arrays (the Python float is converted on every call). A backend that gains from
it sets ``scalar_operands = ScalarOperands(xp)``; the arithmetic ops then look
the scalar up, keyed by value and the array's dtype, instead of passing it raw.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend

__all__ = ["ScalarOperands", "scalar_operand"]


def scalar_operand(backend: Backend, value: Any, native: Any) -> Any:
    """``value`` as ``backend``'s cached 0-d array of dtype ``native``, or as it is when the
    backend keeps no cache (zeros are never cached: ``-0.0 == 0.0``; a zero next to a dtype
    the library would widen for a raw number is a fresh 0-d array)."""
    cache = backend.scalar_operands
    if cache is None:
        return value
    if value:
        return cache[value, native]
    if native in cache.widening:
        return backend.xp.asarray(value, dtype=native)
    return value


class ScalarOperands(dict[Any, Any]):
    """A bounded cache ``(value, native_dtype) -> 0-d array of that dtype``.

    Zeros are never looked up (``-0.0 == 0.0`` would share an entry), and the
    cache is emptied when full (NaN keys never compare equal, so repeated NaNs
    could otherwise grow it). The arrays are operands only: no op returns one.
    """

    __slots__ = ("_xp", "_limit", "widening")

    def __init__(self, xp: Any, limit: int = 512, widening: Any = ()) -> None:
        super().__init__()
        self._xp = xp
        self._limit = limit
        self.widening = frozenset(widening)
        """Native dtypes a raw Python number would widen (NumPy: ml_dtypes' bfloat16 next to
        a Python float gives float32): their numbers are always passed as 0-d arrays."""

    def zero(self, native: Any) -> Any:
        """A cached ``+0.0`` (or integer 0) 0-d array of ``native`` dtype."""
        key = ("zero", native)  # a key no number lookup can produce
        array = self.get(key)
        if array is None:
            array = self[key] = self._xp.zeros((), dtype=native)
        return array

    def __missing__(self, key: tuple[Any, Any]) -> Any:
        if len(self) >= self._limit:
            self.clear()
        value, native = key
        array = self._xp.asarray(value, dtype=native)
        self[key] = array
        return array
