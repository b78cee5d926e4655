"""The special functions (``arraygrad.special`` and ``lgamma``/``digamma``/``polygamma``/
``mvlgamma``/``i0``/``igamma``/``igammac``): forward on every backend against the NumPy float64
reference, gradients where PyTorch has them. Input ranges keep away from poles and domain
edges, where finite differences are meaningless."""

from __future__ import annotations

from typing import Any

import arraygrad as ag
from arraygrad.conformance.cases._make import case

NO_GRAD = ("forward", "dtypes", "devices")  # PyTorch does not differentiate these
S = ag.special


def _unary(op: str, fn: Any, low: float, high: float, **kw: Any) -> Any:
    return case(op, "basic", fn, [(2, 3)], low=low, high=high, **kw)


CASES = (
    _unary("lgamma", ag.lgamma, 0.2, 5.0),
    case("lgamma", "negative", ag.lgamma, [(2, 3)], low=-2.9, high=-2.1),
    _unary("digamma", ag.digamma, 0.3, 5.0),
    case("polygamma", "n1", lambda a: ag.polygamma(1, a), [(2, 3)], low=0.5, high=4.0),
    case("polygamma", "n3-method", lambda a: a.polygamma(3), [(2, 3)], low=0.7, high=4.0,
         grad_rtol=2e-3),
    case("mvlgamma", "p3", lambda a: ag.mvlgamma(a, 3), [(2, 3)], low=1.5, high=4.0),
    _unary("i0", ag.i0, -3.0, 3.0),
    _unary("special.i0e", S.i0e, -3.0, 3.0),
    _unary("special.i1", S.i1, -3.0, 3.0),
    _unary("special.i1e", S.i1e, -3.0, 3.0),
    _unary("special.ndtr", S.ndtr, -3.0, 3.0),
    _unary("special.log_ndtr", S.log_ndtr, -5.0, 3.0),
    _unary("special.ndtri", S.ndtri, 0.05, 0.95),
    _unary("special.erfcx", S.erfcx, -1.5, 3.0),
    _unary("special.entr", S.entr, 0.1, 2.0),
    case("igamma", "x", lambda x: ag.igamma(ag.full_like(x, 2.5), x), [(2, 3)], low=0.5, high=5),
    case("igammac", "x", lambda x: ag.igammac(ag.full_like(x, 0.7), x), [(2, 3)], low=0.2,
         high=3.0),
    case("special.zeta", "q", lambda q: S.zeta(3.0, q), [(2, 3)], low=0.5, high=4.0),
    case("special.xlog1py", "broadcast", S.xlog1py, [(2, 3), (3,)], low=0.2, high=2.0),
    *(_unary(f"special.{name}", getattr(S, name), low, high, checks=NO_GRAD)
      for name, low, high in (
          ("modified_bessel_i0", -3.0, 3.0), ("modified_bessel_i1", -3.0, 3.0),
          ("modified_bessel_k0", 0.2, 5.0), ("modified_bessel_k1", 0.2, 5.0),
          ("scaled_modified_bessel_k0", 0.2, 5.0), ("scaled_modified_bessel_k1", 0.2, 5.0),
          ("bessel_j0", -12.0, 12.0), ("bessel_j1", -12.0, 12.0), ("bessel_y0", 0.2, 12.0),
          ("bessel_y1", 0.2, 12.0), ("spherical_bessel_j0", -6.0, 6.0),
          ("airy_ai", -6.0, 4.0))),
    *(case(f"special.{name}", "n4", lambda x, name=name: getattr(S, name)(x, 4), [(2, 3)],
           low=-1.0, high=1.0, checks=NO_GRAD)
      for name in ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "hermite_polynomial_h",
                   "laguerre_polynomial_l", "legendre_polynomial_p",
                   "shifted_chebyshev_polynomial_w")),
)
