"""The classical orthogonal polynomials ``p_n(x)`` on native arrays, elementwise in both ``x``
and the degree ``n`` (truncated to an integer, as PyTorch casts it; 0 for n < 0 and for a
non-finite n), by their three-term recurrences run up to the largest degree asked for.

Chebyshev T, U, V, W and their shifted forms ``p(2x - 1)``, Hermite H (physicists') and He
(probabilists'), Laguerre L and Legendre P.
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.ops._special._common import widened

__all__ = ["POLYNOMIALS"]

# name -> (p_1 from x, step(k, x, p_{k-1}, p_k) -> p_{k+1}, shifted)
_Step = Callable[[int, Any, Any, Any], Any]


def _chebyshev_step(k: int, x: Any, prev: Any, cur: Any) -> Any:
    return 2.0 * x * cur - prev


def _hermite_h_step(k: int, x: Any, prev: Any, cur: Any) -> Any:
    return 2.0 * x * cur - 2.0 * k * prev


def _hermite_he_step(k: int, x: Any, prev: Any, cur: Any) -> Any:
    return x * cur - k * prev


def _laguerre_step(k: int, x: Any, prev: Any, cur: Any) -> Any:
    return ((2 * k + 1 - x) * cur - k * prev) / (k + 1)


def _legendre_step(k: int, x: Any, prev: Any, cur: Any) -> Any:
    return ((2 * k + 1) * x * cur - k * prev) / (k + 1)


_KINDS: dict[str, tuple[Callable[[Any], Any], _Step]] = {
    "chebyshev_polynomial_t": (lambda x: x, _chebyshev_step),
    "chebyshev_polynomial_u": (lambda x: 2.0 * x, _chebyshev_step),
    "chebyshev_polynomial_v": (lambda x: 2.0 * x - 1.0, _chebyshev_step),
    "chebyshev_polynomial_w": (lambda x: 2.0 * x + 1.0, _chebyshev_step),
    "hermite_polynomial_h": (lambda x: 2.0 * x, _hermite_h_step),
    "hermite_polynomial_he": (lambda x: x, _hermite_he_step),
    "laguerre_polynomial_l": (lambda x: 1.0 - x, _laguerre_step),
    "legendre_polynomial_p": (lambda x: x, _legendre_step),
}


def _polynomial(name: str, shifted: bool) -> Callable[..., Any]:
    first, step = _KINDS[name]

    @widened
    def evaluate(xp: Any, x: Any, n: Any) -> Any:
        x, n = xp.broadcast_arrays(x, n)
        if shifted:
            x = 2.0 * x - 1.0
        degree = xp.where(xp.isfinite(n), xp.trunc(n), xp.full_like(n, -1.0))
        top = int(xp.max(degree)) if degree.size else 0
        prev = xp.ones_like(x)
        out = xp.where(degree == 0, prev, xp.zeros_like(x))
        if top >= 1:
            cur = first(x)
            out = xp.where(degree == 1, cur, out)
            for k in range(1, top):
                prev, cur = cur, step(k, x, prev, cur)
                out = xp.where(degree == k + 1, cur, out)
        return out

    label = ("shifted_" if shifted else "") + name
    evaluate.__name__ = evaluate.__qualname__ = label
    evaluate.__doc__ = f"``{label}(x, n)`` on native arrays (x and n broadcast)."
    return evaluate


POLYNOMIALS: dict[str, Callable[..., Any]] = {
    **{name: _polynomial(name, False) for name in _KINDS},
    **{f"shifted_{name}": _polynomial(name, True) for name in _KINDS
       if name.startswith("chebyshev")},
}
"""``torch.special``'s polynomial name -> ``fn(xp, x, n)`` on native arrays."""
