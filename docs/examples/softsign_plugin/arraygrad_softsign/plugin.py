"""The plugin module named by the entry point: the op, its backward, its case, the hook."""

import arraygrad as ag
from arraygrad.conformance import OpCase
from arraygrad.extend import backward_node, record
from arraygrad.plugins import hookimpl


def _softsign_backward(node, grad):
    # d/dx x / (1 + |x|) = 1 / (1 + |x|)^2. Written with Tensor ops, so it is itself
    # recorded under create_graph=True and second derivatives work.
    (x,) = node.saved_tensors
    return grad / (1 + ag.abs(x)) ** 2


SoftsignBackward0 = backward_node("SoftsignBackward0", _softsign_backward)


def softsign(input):
    """``input / (1 + |input|)``, elementwise."""
    backend = input._backend           # the array library behind this tensor
    xp, data = backend.xp, input._data  # its Array API namespace and the native array
    out = data / (1 + xp.abs(data))
    # record() wraps the result and, if input requires grad, attaches the backward node
    return record(out, backend, SoftsignBackward0, (input,), saved=(input,))


CASES = (
    OpCase("softsign", "softsign/basic", softsign,
           inputs=lambda make: (make((2, 3), low=-3.0, high=3.0),)),
)
"""Conformance cases: forward vs the NumPy float64 reference, grad, double grad, dtypes."""


@hookimpl
def arraygrad_register_ops(registry):
    """Register softsign as an op, a Tensor method, with its conformance cases."""
    registry.op("softsign", softsign, method="softsign", cases=CASES)
