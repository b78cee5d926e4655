"""Recording an op: the shared plumbing every op family uses.

An op computes its result on native arrays through ``backend.xp``, then calls
``record``: when grad mode is on and an input requires grad, a node of the
op's backward class joins the graph. Backward formulas are written with
Tensor operations, so the same code is recorded under ``create_graph=True``.
"""

from __future__ import annotations

from numbers import Number

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import _state
from arraygrad.autograd.anomaly_mode import remember_forward, state as _anomaly
from arraygrad.autograd.graph import Node, SavedOutput, SavedTensor, _sequence
from arraygrad.ops.casting import cast_data, to_float_data  # noqa: F401 - older import path
from arraygrad.ops.promotion import same_backend  # noqa: F401 - older import path
from arraygrad.ops.rule import edge_of as _edge, new_node  # noqa: F401 - older import path
from arraygrad.tensor import Tensor

__all__ = [
    "OpNode", "backward_node", "new_node", "record", "record_node", "record_multi", "as_tensor_like", "same_backend",
    "normalize_dims", "cast_data", "to_float_data", "OUTPUT",
]

_new = object.__new__
_next_seq = _sequence.__next__

OUTPUT = object()
"""Marker in ``saved``: save the op's own output (kept without a reference cycle)."""


class OpNode(Node):
    """A node of a built-in op; ``_backward(node, *grads)`` returns one gradient per input."""

    __slots__ = ("args",)

    def needs_input_grad(self, i: int) -> bool:
        """Whether input ``i`` needs a gradient (its edge exists)."""
        return self._next[i] is not None

    def _apply(self, grads: list) -> tuple:
        result = self._backward(self, *grads)
        return result if type(result) is tuple else (result,)


def backward_node(name: str, backward) -> type:
    """A node class named like PyTorch's (``"MulBackward0"``) running ``backward``."""
    return type(name, (OpNode,), {"__slots__": (), "_backward": staticmethod(backward)})


def _make_node(cls, inputs, saved, args, out=None):
    """A ``cls`` node with edges to ``inputs`` (producing ``out`` when given); ``saved``
    tensors are version-checked and ``OUTPUT`` becomes ``out`` (kept without a cycle)."""
    node = new_node(cls, (_edge(inputs[0]),) if len(inputs) == 1 else
                    tuple([_edge(t) for t in inputs]), out)
    if saved:
        kept = []
        for s in saved:
            if isinstance(s, Tensor):
                s = SavedTensor(s)
            elif s is OUTPUT:
                s = SavedOutput(out)
            kept.append(s)
        node._saved = tuple(kept)
    else:
        node._saved = ()
    node.args = args
    return node


def record(data, backend, cls, inputs, saved=(), args=None) -> Tensor:
    """Wrap ``data`` as the op's output and, when gradients are needed, attach a ``cls`` node.

    ``inputs``: the op's differentiable operands (Tensors, or None for
    non-tensor operands), in the order the backward returns gradients.
    ``saved``: values the backward needs; tensors are version-checked,
    ``OUTPUT`` stands for the result itself.
    """
    out = Tensor._wrap(data, backend)
    if not _state.enabled:
        return out
    for t in inputs:
        if t is not None and t._requires_grad:
            break
    else:
        return out
    _make_node(cls, inputs, saved, args, out)
    return out


def record_node(data, backend, cls, inputs, saved=(), args=None) -> Tensor:
    """``record`` for callers that already know a node is needed (grad mode on and an input
    requires grad): the hot binary ops, which test that first to skip building ``args``."""
    out = Tensor._wrap(data, backend)
    _make_node(cls, inputs, saved, args, out)
    return out


def record_multi(datas, backend, cls, inputs, saved=(), args=None, differentiable=None) -> tuple:
    """Like ``record`` for an op with several outputs (``split``, ``max`` with indices).

    ``differentiable``: which outputs carry gradients (default all).
    """
    outs = tuple(Tensor._wrap(d, backend) for d in datas)
    if not _state.enabled or not any(t is not None and t._requires_grad for t in inputs):
        return outs
    node = _make_node(cls, inputs, saved, args)
    node._out_meta = tuple((o._data.shape, o._data.dtype, backend) for o in outs)
    node._n_outputs = len(outs)
    for i, out in enumerate(outs):
        if differentiable is None or differentiable[i]:
            out._grad_fn = node
            out._requires_grad = True
            out._output_nr = i
    return outs


def as_tensor_like(value, like: Tensor, op: str) -> Tensor:
    """``value`` (Tensor, Python scalar or nested list) as a tensor on ``like``'s backend."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (Number, bool)):
        d = _dt.result_type(like, value)
        backend = like._backend
        return Tensor._wrap(backend.xp.asarray(value, dtype=backend.native_dtype(d)), backend)
    if isinstance(value, (list, tuple)):
        from arraygrad.creation import tensor

        return tensor(value, device=like.device)
    raise TypeError(f"{op}: expected a Tensor or a number, got {type(value).__name__}")


def normalize_dims(dim, ndim: int, op: str):
    """``dim`` (int, sequence or None) as a sorted tuple of non-negative axes, or None for all."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        dims = dim
    else:
        dims = (dim,)
    n = max(ndim, 1)
    out = []
    for d in dims:
        d = int(d)
        if not -n <= d < n:
            raise IndexError(
                f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        d = d % n if ndim else 0
        if d in out:
            raise RuntimeError(f"{op}: dim {d} appears multiple times in the list of dims")
        out.append(d)
    if ndim == 0:
        return ()  # a 0-dim tensor accepts dim 0 / -1 and has no axis to reduce
    return tuple(sorted(out))
