"""``torch.special``'s orthogonal polynomials ``chebyshev_polynomial_t(x, n)`` ... (Chebyshev
T/U/V/W and shifted, Hermite H/He, Laguerre L, Legendre P): elementwise in ``x`` and the
degree ``n`` (tensors or numbers, broadcast and promoted), not differentiable (as PyTorch).
"""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.ops._special.polynomials import POLYNOMIALS as _POLYNOMIALS
from arraygrad.ops.families._special_op import binary_op

__all__ = ["POLYNOMIALS"]

POLYNOMIALS: dict[str, Callable[..., Any]] = {
    name: binary_op(name, None, fn, f"The polynomial ``{name}`` of degree ``n`` at ``x``, "
                    "elementwise (n truncated to an integer; 0 for n < 0; no gradient).",
                    polynomial=True)
    for name, fn in _POLYNOMIALS.items()}
"""``torch.special``'s polynomial functions by name."""
