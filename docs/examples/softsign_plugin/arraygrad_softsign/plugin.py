"""The plugin module named by the entry point: the op, its backward, its case, the hook."""

import arraygrad as ag
from arraygrad.conformance import OpCase
from arraygrad.extend import defop
from arraygrad.plugins import hookimpl

# The rule: d/dx x / (1 + |x|) = 1 / (1 + |x|)^2, written with Tensor ops, so it is itself
# recorded under create_graph=True and second derivatives work. The recorder skips it when
# x needs no gradient, and would sum it back to x's shape after broadcasting.
SOFTSIGN = defop("SoftsignBackward0", saves=("self",),
                 vjp=(lambda grad, n: grad / (1 + ag.abs(n.self)) ** 2,))


def softsign(input):
    """``input / (1 + |input|)``, elementwise."""
    backend = input._backend           # the array library behind this tensor
    xp, data = backend.xp, input._data  # its Array API namespace and the native array
    out = data / (1 + xp.abs(data))
    # record() wraps the result and, if input requires grad, links the rule's node
    return SOFTSIGN.record(out, backend, (input,))


CASES = (
    OpCase("softsign", "softsign/basic", softsign,
           inputs=lambda make: (make((2, 3), low=-3.0, high=3.0),)),
)
"""Conformance cases: forward vs the NumPy float64 reference, grad, double grad, dtypes."""


@hookimpl
def arraygrad_register_ops(registry):
    """Register softsign as an op, a Tensor method, with its conformance cases."""
    registry.op("softsign", softsign, method="softsign", cases=CASES)
