"""Issue 23's ops: the strided views (``as_strided``, ``unfold``, ``slice_inverse``), a
float's parts (``frexp``, ``ldexp``, ``nextafter``), ``angle`` on real tensors, and some of the
composites (``renorm``, ``dist``, ``cov``, the view scatters, stacking, ``gradient``,
``trapezoid``, ``vander``)."""

from __future__ import annotations

import arraygrad as ag
from arraygrad.conformance.cases._make import case

CASES = (
    case("unfold", "overlapping", lambda a: a.unfold(1, 3, 1), [(2, 5)]),
    case("unfold", "strided", lambda a: a.unfold(0, 2, 3), [(8, 2)]),
    case("as_strided", "window", lambda a: ag.as_strided(a, (3, 3), (2, 1), 1), [(10,)]),
    case("as_strided", "transposed", lambda a: a.as_strided((2, 3), (1, 2)), [(3, 2)]),
    # the slice of a tensor and that tensor: the result is the tensor again, its slice's
    # elements reached through the slice, the others through ``src``
    case("slice_inverse", "basic", lambda a: ag.slice_inverse(a[1:5:2], a, 0, 1, 5, 2), [(6,)]),
    case("frexp", "mantissa", lambda a: ag.frexp(a).mantissa, [(2, 3)], "away", low=0.3, high=5.0),
    case("ldexp", "basic", ag.ldexp, [(2, 3), (3,)]),
    case("nextafter", "basic", ag.nextafter, [(2, 3), (2, 3)], dtypes=("float64",)),
    case("angle", "real", ag.angle, [(2, 3)], "away"),
    case("renorm", "basic", lambda a: ag.renorm(a, 2, 0, 0.5), [(3, 4)], low=0.5, high=1.5),
    case("dist", "p3", lambda a, b: ag.dist(a, b, 3), [(2, 3), (3,)]),
    case("cov", "aweights", lambda a, w: ag.cov(a, aweights=w), [(2, 5), (5,)], low=0.5,
         high=1.5),
    case("corrcoef", "basic", ag.corrcoef, [(3, 5)]),
    case("select_scatter", "basic", lambda a, s: ag.select_scatter(a, s, 1, -1), [(3, 4), (3,)]),
    case("slice_scatter", "step", lambda a, s: ag.slice_scatter(a, s, 1, 0, 4, 2), [(3, 4), (3, 2)]),
    case("diagonal_scatter", "offset", lambda a, s: ag.diagonal_scatter(a, s, 1), [(3, 4), (3,)]),
    case("hstack", "basic", lambda a, b: ag.hstack([a, b]), [(2, 3), (2, 1)]),
    case("column_stack", "basic", lambda a, b: ag.column_stack([a, b]), [(3,), (3, 2)]),
    case("gradient", "edge2", lambda a: ag.gradient(a, edge_order=2), [(3, 4)]),
    case("trapezoid", "x", lambda a, x: ag.trapezoid(a, x), [(2, 4), (4,)]),
    case("cumulative_trapezoid", "dx", lambda a: ag.cumulative_trapezoid(a, dx=0.5), [(2, 4)]),
    case("vander", "basic", lambda a: ag.vander(a, 4), [(3,)]),
)
