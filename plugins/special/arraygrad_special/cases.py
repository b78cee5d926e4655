"""Conformance cases for every op of the plugin, handed to the registry with each op.

``arraygrad-conformance BACKEND`` runs them on any backend: forward against
the NumPy float64 reference, gradients and second derivatives by finite
differences, and the float32/float64 dtype checks. Input ranges keep away
from poles and domain edges, where finite differences are meaningless.
"""

from __future__ import annotations

from arraygrad.conformance import OpCase

from arraygrad_special import ops

__all__ = ["CASES"]


def _unary(op, name, fn, low, high, shape=(2, 3), **kw):
    return OpCase(op, f"{op}/{name}", fn,
                  inputs=lambda make: (make(shape, low=low, high=high),), **kw)


CASES = {
    # erf is the core's op, with the core's cases; the plugin adds the method
    "Tensor.erf": (_unary("Tensor.erf", "method", lambda x: x.erf(), -2.0, 2.0),),
    "erfc": (_unary("erfc", "basic", ops.erfc, -2.0, 2.0),),
    "erfinv": (_unary("erfinv", "basic", ops.erfinv, -0.9, 0.9),),
    "lgamma": (_unary("lgamma", "positive", ops.lgamma, 0.2, 5.0),
               _unary("lgamma", "negative", ops.lgamma, -2.9, -2.1)),
    "gammaln": (_unary("gammaln", "basic", ops.gammaln, 0.5, 4.0),),
    "digamma": (_unary("digamma", "basic", ops.digamma, 0.3, 5.0),),
    "psi": (_unary("psi", "basic", ops.psi, 0.5, 4.0),),
    "polygamma": (_unary("polygamma", "n1", lambda x: ops.polygamma(1, x), 0.5, 4.0),
                  _unary("polygamma", "n3", lambda x: ops.polygamma(3, x), 0.5, 4.0,
                         grad_rtol=2e-3)),
    "Tensor.polygamma": (_unary("Tensor.polygamma", "n2", lambda x: x.polygamma(2), 0.5, 4.0),),
    "i0": (_unary("i0", "basic", ops.i0, -3.0, 3.0),),
    "i1": (_unary("i1", "basic", ops.i1, -3.0, 3.0),),
    "xlogy": (
        OpCase("xlogy", "xlogy/basic", ops.xlogy,
               inputs=lambda make: (make((2, 3), low=-2.0, high=2.0),
                                    make((2, 3), low=0.5, high=3.0))),
        OpCase("xlogy", "xlogy/broadcast", ops.xlogy,
               inputs=lambda make: (make((2, 3), low=-2.0, high=2.0),
                                    make((3,), low=0.5, high=3.0))),
        OpCase("xlogy", "xlogy/scalar-other", lambda x: ops.xlogy(x, 2.5),
               inputs=lambda make: (make((2, 3), low=-2.0, high=2.0),)),
    ),
    "logit": (
        _unary("logit", "basic", ops.logit, 0.1, 0.9),
        # eps clamps to [0.2, 0.8]: inputs spread over (0, 1) fall on both sides, and the
        # gradient is 0 outside
        _unary("logit", "eps", lambda x: ops.logit(x, eps=0.2), 0.02, 0.98, shape=(3, 4)),
    ),
    "expit": (_unary("expit", "basic", ops.expit, -4.0, 4.0),),
}
"""Conformance cases, by op name."""
