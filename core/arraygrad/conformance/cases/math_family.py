"""Elementwise math of issue #12: unary functions (exp2, hyperbolic, inverse trig, sinc...),
binary ones (atan2, hypot, copysign, fmod, logaddexp, fmax/fmin...), lerp/addcmul/addcdiv,
rounding with decimals and ``div`` rounding modes."""

from __future__ import annotations

import arraygrad as ag
from arraygrad.conformance.cases._make import case

P = dict(low=0.5, high=1.5)  # a positive domain: log2, log10
U = dict(low=-0.8, high=0.8)  # inside (-1, 1): asin, acos, atanh
NO_GRAD = ("forward", "dtypes", "devices")  # piecewise-constant or not differentiable

CASES = (
    case("exp2", "basic", ag.exp2, [(2, 3)]),
    case("log2", "basic", ag.log2, [(2, 3)], **P),
    case("log10", "basic", ag.log10, [(2, 3)], **P),
    case("sinh", "basic", ag.sinh, [(2, 3)]),
    case("cosh", "basic", ag.cosh, [(2, 3)]),
    case("asinh", "basic", ag.asinh, [(2, 3)]),
    case("acosh", "basic", ag.acosh, [(2, 3)], low=1.2, high=2.5),
    case("atanh", "basic", ag.atanh, [(2, 3)], **U),
    case("asin", "basic", ag.asin, [(2, 3)], **U),
    case("acos", "basic", ag.acos, [(2, 3)], **U),
    case("atan", "basic", ag.atan, [(2, 3)], low=-2.0, high=2.0),
    case("sinc", "basic", ag.sinc, [(2, 3)], "away", low=0.2, high=1.8),
    case("square", "basic", ag.square, [(2, 3)]),
    case("frac", "basic", ag.frac, [(2, 3)], "grid"),
    case("deg2rad", "basic", ag.deg2rad, [(2, 3)]),
    case("rad2deg", "basic", ag.rad2deg, [(2, 3)]),
    case("nan_to_num", "finite", ag.nan_to_num, [(2, 3)]),
    case("sgn", "basic", ag.sgn, [(2, 3)], "grid"),
    case("round", "decimals", lambda a: ag.round(a * 10, decimals=1), [(2, 3)], "grid"),
    case("div", "trunc", lambda a, b: ag.div(a, b, rounding_mode="trunc"),
         [(2, 3), (3,)], "grid"),
    case("atan2", "broadcast", ag.atan2, [(2, 3), (3,)], "away"),
    case("hypot", "broadcast", ag.hypot, [(2, 3), (3,)], "away"),
    case("copysign", "broadcast", ag.copysign, [(2, 3), (3,)], "away"),
    case("copysign", "scalar", lambda a: ag.copysign(a, -1.0), [(2, 3)], "away"),
    case("fmod", "broadcast", ag.fmod, [(2, 3), (3,)], "grid"),
    case("fmod", "scalar", lambda a: ag.fmod(a, 0.7), [(2, 3)], "grid"),
    case("logaddexp", "broadcast", ag.logaddexp, [(2, 3), (3,)]),
    case("logaddexp2", "broadcast", ag.logaddexp2, [(2, 3), (3,)]),
    case("fmax", "broadcast", ag.fmax, [(2, 3), (3,)], "grid"),
    case("fmin", "broadcast", ag.fmin, [(2, 3), (3,)], "grid"),
    case("float_power", "tensor", lambda a, b: ag.float_power(a, b), [(2, 3), (3,)],
         tags=("float64",), **P),  # float_power computes in float64
    case("lerp", "scalar-weight", lambda a, b: ag.lerp(a, b, 0.3), [(2, 3), (3,)]),
    case("lerp", "tensor-weight", ag.lerp, [(2, 3), (3,), (2, 1)]),
    case("addcmul", "broadcast", lambda a, b, c: ag.addcmul(a, b, c, value=0.5),
         [(2, 3), (3,), (2, 1)]),
    case("addcdiv", "broadcast", lambda a, b, c: ag.addcdiv(a, b, c, value=-2.0),
         [(2, 3), (3,), (2, 1)], "away"),
    case("clamp_min", "basic", lambda a: ag.clamp_min(a, 0.2), [(2, 3)], "grid"),
    case("clamp_max", "basic", lambda a: ag.clamp_max(a, 0.2), [(2, 3)], "grid"),
    # the core's erfc/erfinv (also arraygrad.special.erfc/erfinv: the same functions)
    case("erfc", "core", ag.erfc, [(2, 3)], low=-2.0, high=3.0),
    case("erfinv", "core", ag.erfinv, [(2, 3)], low=-0.9, high=0.9),
    case("logit", "core", ag.logit, [(2, 3)], low=0.1, high=0.9),
    case("logit", "core-eps", lambda a: ag.logit(a, eps=0.05), [(2, 3)], low=0.1, high=0.9),
    case("xlogy", "core-broadcast", ag.xlogy, [(2, 3), (3,)], low=0.3, high=1.5),
)
