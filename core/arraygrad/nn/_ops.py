"""Differentiable primitives ``nn.functional`` needs that Tensor ops cannot express well.

``erf``: the core's op (``ops.families.math_special``: W. J. Cody's rational Chebyshev
approximations), re-exported here for ``gelu``.

``log_sigmoid``: ``min(x, 0) - log1p(exp(-|x|))``, which never overflows; its
backward ``sigmoid(-x)`` has no kink at 0 (composing ``abs`` would give the
wrong gradient there).

Backwards are Tensor ops, so double backward works.
"""

from __future__ import annotations

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.arguments import tensor_arg
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import to_float_data
from arraygrad.ops.families.math_special import erf
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor


__all__ = ["erf", "log_sigmoid"]

# sigmoid(-x), not a composition through abs: no kink at 0
LOG_SIGMOID = defop("LogSigmoidBackward0", jvp=ELEMENTWISE, saves=("self",),
                    vjp=(lambda g, n: g * ew.sigmoid(-n.self),))


def log_sigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))`` computed without overflow."""
    check_kernel_dtype("log_sigmoid", input)
    tensor_arg("log_sigmoid", input)
    backend = input._backend
    xp = backend.xp
    x = to_float_data(input)
    data = xp.minimum(x, xp.zeros_like(x)) - xp.log1p(xp.exp(-xp.abs(x)))
    return LOG_SIGMOID.record(data, backend, (input,))
