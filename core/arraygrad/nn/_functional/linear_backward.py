"""The backward of ``linear`` as one differentiable op.

First-order backward computes ``g @ w``, ``g^T x`` and ``sum(g)`` on native arrays in
one call instead of five tensor ops; when ``create_graph=True`` records it, its own
backward (written in Tensor ops) gives second derivatives.
"""

from __future__ import annotations

from arraygrad.autograd.grad_mode import _state
from arraygrad.ops import linalg
from arraygrad.ops._record import backward_node, record_multi
from arraygrad.tensor import Tensor

__all__ = ["linear_backward"]


def _linear_backward_backward(node, *grads):
    g, x, w = node.saved_tensors
    which = node.args
    out_f, in_f = w.shape
    gg = dict(zip(which, grads))
    g2 = g.reshape(-1, out_f)
    x2 = x.reshape(-1, in_f)
    dg = dx = dw = None
    if node._next[0] is not None:
        terms = []
        if "x" in gg:
            terms.append(linalg.matmul(gg["x"].reshape(-1, in_f), w.t()))
        if "w" in gg:
            terms.append(linalg.matmul(x2, gg["w"].t()))
        if "b" in gg:
            terms.append(gg["b"].expand(g2.shape[0], out_f))
        if terms:
            dg = terms[0]
            for t in terms[1:]:
                dg = dg + t
            dg = dg.reshape(tuple(g.shape))
    if node._next[1] is not None and "w" in gg:
        dx = linalg.matmul(g2, gg["w"]).reshape(tuple(x.shape))
    if node._next[2] is not None and "x" in gg:
        dw = linalg.matmul(g2.t(), gg["x"].reshape(-1, in_f))
    return dg, dx, dw


LinearBackwardBackward0 = backward_node("LinearBackwardBackward0", _linear_backward_backward)


def linear_backward(g, x, w, need_x: bool, need_w: bool, need_b: bool):
    """``(g @ w, g^T x, sum(g))`` (each None unless needed) for ``y = x @ w.T + b``."""
    backend = g._backend
    xp = backend.xp
    out_f, in_f = w._data.shape
    gd = g._data
    g2 = gd if gd.ndim == 2 else xp.reshape(gd, (-1, out_f))
    gw = gb = None
    if need_w:
        xd = x._data
        gw = xp.matmul(g2.T, xd if xd.ndim == 2 else xp.reshape(xd, (-1, in_f)))  # fresh (out, in)
    if need_b:
        gb = xp.sum(g2, axis=0)
    gx = xp.matmul(gd, w._data) if need_x else None
    if not _state.enabled or not (g._requires_grad or x._requires_grad or w._requires_grad):
        # first order (the usual case): nothing to record
        wrap = Tensor._wrap
        return (None if gx is None else wrap(gx, backend), None if gw is None else wrap(gw, backend),
                None if gb is None else wrap(gb, backend))
    which = tuple(name for name, d in (("x", gx), ("w", gw), ("b", gb)) if d is not None)
    datas = [d for d in (gx, gw, gb) if d is not None]
    outs = dict(zip(which, record_multi(datas, backend, LinearBackwardBackward0, (g, x, w),
                                        saved=(g, x, w), args=which)))
    return outs.get("x"), outs.get("w"), outs.get("b")
