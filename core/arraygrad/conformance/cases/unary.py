"""Elementwise math: unary functions, clamp, maximum/minimum, where, rounding."""

from __future__ import annotations

import arraygrad as ag
from arraygrad.conformance.cases._make import case

P = dict(low=0.5, high=1.5)  # a positive domain: log, sqrt, rsqrt...

CASES = (
    case("abs", "basic", ag.abs, [(2, 3)], "grid"),
    case("exp", "basic", ag.exp, [(2, 3)]),
    case("log", "basic", ag.log, [(2, 3)], **P),
    case("log1p", "basic", ag.log1p, [(2, 3)], **P),
    case("expm1", "basic", ag.expm1, [(2, 3)]),
    case("sqrt", "basic", ag.sqrt, [(2, 3)], **P),
    case("rsqrt", "basic", ag.rsqrt, [(2, 3)], **P),
    case("sin", "basic", ag.sin, [(2, 3)]),
    case("cos", "basic", ag.cos, [(2, 3)]),
    case("tan", "basic", ag.tan, [(2, 3)]),
    case("tanh", "basic", ag.tanh, [(2, 3)]),
    case("sigmoid", "basic", ag.sigmoid, [(2, 3)]),
    # the core's erf (gelu's too); plugins may only add kernels for it
    case("erf", "basic", lambda a: ag.special.erf(a), [(2, 3)], low=-2.0, high=2.0),
    case("reciprocal", "basic", ag.reciprocal, [(2, 3)], "away"),
    case("relu", "basic", ag.relu, [(2, 3)], "grid"),
    case("sign", "basic", ag.sign, [(2, 3)], "grid"),
    case("clamp", "min", lambda a: ag.clamp(a, min=-0.5), [(3, 4)], "grid"),
    case("clamp", "max", lambda a: ag.clamp(a, max=0.5), [(3, 4)], "grid"),
    case("clamp", "both", lambda a: a.clamp(-0.5, 1.0), [(3, 4)], "grid"),
    case("clamp", "tensor-bounds", lambda a, lo, hi: ag.clamp(a, min=lo, max=hi),
         [(2, 3), (2, 3), (3,)], "grid"),
    case("clamp", "tensor-min", lambda a, lo: ag.clamp(a, min=lo), [(2, 3), (3,)], "grid"),
    case("maximum", "basic", ag.maximum, [(2, 3), (2, 3)], "grid"),
    case("maximum", "broadcast", ag.maximum, [(2, 3), (3,)], "grid"),
    case("minimum", "basic", ag.minimum, [(2, 3), (2, 3)], "grid"),
    case("minimum", "broadcast", ag.minimum, [(2, 1), (3,)], "grid"),
    case("where", "basic", lambda a, b: ag.where(a > 0, a, b), [(2, 3), (2, 3)], "grid"),
    case("where", "broadcast", lambda a, b: ag.where(a > 0, a, b), [(2, 3), (3,)], "grid"),
    case("where", "scalar", lambda a: ag.where(a > 0, a, 0.5), [(2, 3)], "grid"),
    case("rounding", "floor-ceil-round-trunc",
         lambda a: a.floor() + a.ceil() + a.round() + a.trunc(), [(2, 3)], "grid"),
)
