"""The public API for op plugins: define a differentiable op the way the core's own ops are.

An op computes its result on native arrays through ``backend_of(t).xp`` (or a
per-backend kernel, called through ``dispatch_kernel``), then calls ``record``:
when gradients are needed a node of a class made by ``backward_node`` joins the graph. Backward
formulas use Tensor operations, so ``create_graph=True`` records them too.

>>> def _softsign_backward(node, g):
...     (x,) = node.saved_tensors
...     return g / (1 + x.abs()) ** 2
>>> SoftsignBackward0 = backward_node("SoftsignBackward0", _softsign_backward)
>>> def softsign(x):
...     xp = backend_of(x).xp
...     data = native(x) / (1 + xp.abs(native(x)))
...     return record(data, backend_of(x), SoftsignBackward0, (x,), saved=(x,))
"""

from arraygrad.ops._record import OUTPUT, backward_node, record
from arraygrad.plugins.registry import dispatch_kernel, get_kernel

__all__ = ["OUTPUT", "backward_node", "record", "get_kernel", "dispatch_kernel", "native",
           "backend_of"]


def native(t):
    """The tensor's native array (the backend's own array object)."""
    return t._data


def backend_of(t):
    """The tensor's backend (``.xp`` is its Array API namespace, ``.name`` its registry name)."""
    return t._backend
