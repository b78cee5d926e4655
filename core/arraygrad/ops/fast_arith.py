"""Fast paths of ``+ - * /`` for the operands that dominate real code.

A tensor with a Python number, or two tensors of one shape, dtype and backend,
need no promotion, broadcasting or gradient reduction. For those the ops in
``elementwise`` call ``binary`` first: it computes the result and links a node
whose backward is the formula with nothing to undo, in about half the time of
the general path. Anything else returns None and takes the general path, which
stays the reference: ``tests/ops/test_fast_arith.py`` checks that both agree on
values, dtypes, node names, edges and gradients (first and second order).
"""

from __future__ import annotations

import operator

from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.graph import SavedTensor
from arraygrad.backends.scalar_operands import scalar_operand
from arraygrad.ops._record import OpNode, _edge, new_node
from arraygrad.tensor import Tensor, wrap

__all__ = ["binary"]


# -- nodes: the backward of each fast case, with nothing to reduce or cast ------------------

class _TensorScalar(OpNode):
    """Base of ``tensor op scalar`` nodes: the tensor's edge and a None for the number
    (``(None, edge)`` for ``scalar op tensor``). ``*`` and ``/`` save the number, as
    PyTorch does, so a second backward through them raises once the graph is freed."""

    __slots__ = ()


class _AddScalar(_TensorScalar):
    __slots__ = ()

    def _apply(self, grads):
        g = grads[0]
        return (None, g) if self._next[0] is None else (g, None)


class _SubScalar(_TensorScalar):  # tensor - scalar
    __slots__ = ()

    def _apply(self, grads):
        return (grads[0], None)


class _RsubScalar(_TensorScalar):  # scalar - tensor: edges (None, tensor)
    __slots__ = ()

    def _apply(self, grads):
        return (None, -grads[0])


class _MulScalar(_TensorScalar):
    __slots__ = ()

    def _apply(self, grads):
        g = grads[0]
        s = self._saved[0]
        if _state.enabled:  # create_graph: recorded
            g = g * s
        else:  # first order: the product on arrays
            data = g._data
            g = wrap(data * scalar_operand(g._backend, s, data.dtype), g._backend)
        return (None, g) if self._next[0] is None else (g, None)


class _DivScalar(_TensorScalar):  # tensor / scalar
    __slots__ = ()

    def _apply(self, grads):
        return (grads[0] / self._saved[0], None)


class _AddSame(OpNode):
    __slots__ = ()

    def _apply(self, grads):
        g = grads[0]
        return (g, g)


class _SubSame(OpNode):
    __slots__ = ()

    def _apply(self, grads):
        g = grads[0]
        return (g, -g if self._next[1] is not None else None)


class _MulSame(OpNode):
    __slots__ = ()

    def _apply(self, grads):
        g = grads[0]
        a, b = self.saved_tensors
        nxt = self._next
        return (g * b if nxt[0] is not None else None, g * a if nxt[1] is not None else None)


for _cls, _name in ((_AddScalar, "AddBackward0"), (_SubScalar, "SubBackward0"),
                    (_RsubScalar, "SubBackward0"), (_MulScalar, "MulBackward0"),
                    (_DivScalar, "DivBackward0"), (_AddSame, "AddBackward0"),
                    (_SubSame, "SubBackward0"), (_MulSame, "MulBackward0")):
    _cls.__name__ = _cls.__qualname__ = _name  # the names PyTorch shows


class _Spec:
    """One operator's fast cases: its native function and node classes (None: no fast
    case), and whether its backward needs the operands (saved)."""

    __slots__ = ("native", "scalar_node", "scalar_first_node", "same_node", "saves_operands")

    def __init__(self, native, scalar_node, scalar_first_node, same_node, saves_operands=False):
        self.native = native
        self.scalar_node = scalar_node
        self.scalar_first_node = scalar_first_node
        self.same_node = same_node
        self.saves_operands = saves_operands


ADD = _Spec(operator.add, _AddScalar, _AddScalar, _AddSame)
SUB = _Spec(operator.sub, _SubScalar, _RsubScalar, _SubSame)
MUL = _Spec(operator.mul, _MulScalar, _MulScalar, _MulSame, saves_operands=True)
DIV = _Spec(operator.truediv, _DivScalar, None, None, saves_operands=True)


def binary(a, b, spec: _Spec):
    """``a op b`` on the fast path, or None when the operands need the general one.

    Fast: a floating tensor with a Python ``float``/``int`` (either side), or two
    tensors of one backend, shape and floating dtype.
    """
    if isinstance(a, Tensor):
        t, other, scalar_first = a, b, False
    else:
        t, other, scalar_first = b, a, True
        if not isinstance(t, Tensor):
            return None
    data = t._data
    backend = t._backend
    dtype = data.dtype
    if dtype not in backend.floating_natives:
        return None
    kind = type(other)
    if kind is float or kind is int:
        node_cls = spec.scalar_first_node if scalar_first else spec.scalar_node
        if node_cls is None:
            return None
        s = scalar_operand(backend, other, dtype)
        result = spec.native(s, data) if scalar_first else spec.native(data, s)
        needs_node = t._requires_grad
    elif scalar_first or not isinstance(other, Tensor) or spec.same_node is None:
        return None
    else:
        od = other._data
        if od.shape != data.shape or od.dtype != dtype or other._backend is not backend:
            return None
        node_cls = spec.same_node
        result = spec.native(data, od)
        needs_node = t._requires_grad or other._requires_grad
    out = wrap(result, backend)
    if not (needs_node and _state.enabled):
        return out
    edge = _edge(t)
    if node_cls is spec.same_node:
        node = new_node(node_cls, (edge, _edge(other)), out)
        if spec.saves_operands:  # each gradient needs the other operand
            nxt = node._next
            node._saved = (SavedTensor(t) if nxt[1] is not None else None,
                           SavedTensor(other) if nxt[0] is not None else None)
        else:
            node._saved = ()
    else:
        node = new_node(node_cls, (None, edge) if scalar_first else (edge, None), out)
        node._saved = (other,) if spec.saves_operands else ()
    node.args = None
    return out
