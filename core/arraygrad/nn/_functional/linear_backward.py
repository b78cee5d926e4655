"""The backward of ``linear`` as one differentiable op.

``linear_grad_data`` computes ``g @ w``, ``g^T x`` and ``sum(g)`` on native arrays: the
first-order backward of ``linear``'s rule, one call instead of five tensor ops. Under
``create_graph=True``, ``linear_backward`` records the same products as one node
(``LinearBackwardBackward0``), whose own backward, in Tensor ops, gives second derivatives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.transform_state import array_kernel
from arraygrad.ops import linalg
from arraygrad.ops.rule import VIA_VJP, defop

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor
    from arraygrad.ops.rule import RuleNode
    from arraygrad.backends.contract import Backend

__all__ = ["linear_backward", "linear_grad_data"]


@array_kernel
def linear_grad_data(backend: Backend, gd: Any, xd: Any, wd: Any, need_x: bool, need_w: bool,
                     need_b: bool) -> tuple[Any, ...]:
    """``(g @ w, g^T x, sum(g))`` on arrays (each None unless needed) for ``y = x @ w.T + b``."""
    xp = backend.xp
    out_f, in_f = wd.shape
    g2 = gd if gd.ndim == 2 else xp.reshape(gd, (-1, out_f))
    gw = gb = None
    if need_w:
        gw = xp.matmul(g2.T, xd if xd.ndim == 2 else xp.reshape(xd, (-1, in_f)))  # fresh (out, in)
    if need_b:
        gb = xp.sum(g2, axis=0)
    gx = None
    if need_x:  # a 2-D product, reshaped back (see linear's forward)
        gx = xp.matmul(g2, wd) if gd.ndim == 2 else xp.reshape(xp.matmul(g2, wd),
                                                                (*gd.shape[:-1], in_f))
    return gx, gw, gb


def _linear_backward_backward(grads: Any, n: RuleNode) -> tuple[Any, ...]:
    """The gradients of ``(g, x, w)`` from those of the outputs ``(gx, gw, gb)`` that were
    made (``n.made``); the others are placeholders, and get nothing."""
    need_g, need_x, need_w = n.needs_input_grad
    g, w = n.grad_output, n.weight
    out_f, in_f = w.shape
    ggx, ggw, ggb = (gi if made else None for gi, made in zip(grads, n.made))
    g2 = g.reshape(-1, out_f)
    dg = dx = dw = None
    if need_g:
        terms = []
        if ggx is not None:
            terms.append(linalg.matmul(ggx.reshape(-1, in_f), w.t()))
        if ggw is not None:
            terms.append(linalg.matmul(n.self.reshape(-1, in_f), ggw.t()))
        if ggb is not None:
            terms.append(ggb.expand(g2.shape[0], out_f))
        if terms:
            dg = terms[0]
            for t in terms[1:]:
                dg = dg + t
            dg = dg.reshape(tuple(g.shape))
    if need_x and ggw is not None:
        dx = linalg.matmul(g2, ggw).reshape(tuple(n.self.shape))
    if need_w and ggx is not None:
        dw = linalg.matmul(g2.t(), ggx.reshape(-1, in_f))
    return dg, dx, dw


# inputs: the output's gradient, linear's input and weight; outputs: (gx, gw, gb), of which
# only the needed ones are made (``made``; the others are 0-d placeholders)
LINEAR_BACKWARD = defop("LinearBackwardBackward0", jvp=VIA_VJP, inputs=("grad_output", "self", "weight"),
                        saves=("grad_output", "self", "weight"), params=("made",),
                        outputs=3, vjp=_linear_backward_backward)


def linear_backward(g: Tensor, x: Tensor, w: Any, need_x: bool, need_w: bool,
                    need_b: bool) -> tuple[Any, ...]:
    """``(g @ w, g^T x, sum(g))`` (each None unless needed) for ``y = x @ w.T + b``, recorded
    as one node when grad mode is on and ``g``, ``x`` or ``w`` requires grad."""
    backend = g._backend
    xd = None if x is None else x._data
    datas = linear_grad_data(backend, g._data, xd, w._data, need_x, need_w, need_b)
    made = tuple(d is not None for d in datas)
    placeholder = None
    if not all(made):
        placeholder = backend.xp.zeros((), dtype=g._data.dtype)
    outs = LINEAR_BACKWARD.record_many(
        [placeholder if d is None else d for d in datas], backend, (g, x, w),
        differentiable=made, made=made)
    return tuple(o if m else None for o, m in zip(outs, made))
