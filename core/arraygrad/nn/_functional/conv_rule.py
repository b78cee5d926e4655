"""A forward convolution as one rule (PyTorch's ``ConvolutionBackward0``), any number of
spatial dims, with groups, stride, padding and dilation.

* Forward and first-order backward are array formulas: the backend's kernels
  ``"conv_forward"``, ``"conv_input_grad"`` and ``"conv_weight_grad"`` (``Backend.kernel``)
  when it has them and fast paths are on, else the portable formulation every backend runs:
  ``im2col`` windows and one (grouped) product per direction, the input's gradient summed
  back by ``col2im``.
* The recorded backward (``create_graph``, and every backward under
  ``ARRAYGRAD_REFERENCE=1``) is the same formulation in Tensor ops (``im2col``, ``col2im``
  and ``matmul`` are recorded ops), so derivatives of any order work.

A backend kernel gets native arrays and the geometry ``(kernel, dilation, stride, pad_lo,
out)`` (one entry per spatial axis in each; the zero padding after the input is whatever
the windows reach)::

    conv_forward(x, w, geom, groups) -> y
    conv_input_grad(g, w, geom, groups, in_sizes) -> gx
    conv_weight_grad(g, x, geom, groups, weight_shape) -> gw

with ``x`` ``(N, C, *in_sizes)``, ``w`` ``(O, C / groups, *kernel)`` (``weight_shape``),
``g`` and ``y`` ``(N, O, *out)``; each result a fresh array. It returns ``NotImplemented`` to decline a call (an array or
dtype it does not serve); the portable formula then runs.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

from arraygrad.nn._functional.windows import _col2im_data, _im2col_data, col2im, im2col
from arraygrad.ops.backend_kernels import dispatch_kernel
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["CONVOLUTION", "convolution", "conv_data", "input_grad_data", "weight_grad_data"]


def conv_data(backend: Backend, x: Any, w: Any, geom: Any, groups: int) -> Any:
    """The convolution of ``x`` by ``w`` (no bias) on arrays: ``(N, O, *out)``."""
    return dispatch_kernel("conv_forward", backend, functools.partial(_forward, backend),
                     x, w, geom, groups)


def _forward(backend: Backend, x: Any, w: Any, geom: Any, groups: int) -> Any:
    xp = backend.xp
    n, o = x.shape[0], w.shape[0]
    cols = xp.reshape(_im2col_data(backend, x, geom), (n, groups, -1, math.prod(geom[4])))
    y = xp.matmul(xp.reshape(w, (groups, o // groups, -1)), cols)
    return xp.reshape(y, (n, o) + tuple(geom[4]))


def input_grad_data(backend: Backend, g: Any, w: Any, geom: Any, groups: int,
                    in_sizes: tuple[int, ...]) -> Any:
    """The input's gradient on arrays: the windows' gradients summed back into the input."""
    return dispatch_kernel("conv_input_grad", backend, functools.partial(_input_grad, backend),
                     g, w, geom, groups, in_sizes)


def _input_grad(backend: Backend, g: Any, w: Any, geom: Any, groups: int,
                in_sizes: tuple[int, ...]) -> Any:
    xp = backend.xp
    n, o = g.shape[:2]
    wr = xp.reshape(w, (groups, o // groups, -1))
    cols = xp.matmul(xp.matrix_transpose(wr), xp.reshape(g, (n, groups, o // groups, -1)))
    cols = xp.reshape(cols, (n, w.shape[1] * groups, math.prod(geom[0])) + tuple(geom[4]))
    return _col2im_data(backend, cols, in_sizes, geom)


def weight_grad_data(backend: Backend, g: Any, x: Any, geom: Any, groups: int,
                     weight_shape: tuple[int, ...]) -> Any:
    """The weight's gradient on arrays: each output's gradient times its window, summed."""
    return dispatch_kernel("conv_weight_grad", backend, functools.partial(_weight_grad, backend),
                     g, x, geom, groups, weight_shape)


def _weight_grad(backend: Backend, g: Any, x: Any, geom: Any, groups: int,
                 weight_shape: tuple[int, ...]) -> Any:
    xp = backend.xp
    n, o = g.shape[:2]
    length = math.prod(geom[4])
    gr = xp.reshape(g, (n, groups, o // groups, length))
    cols = xp.reshape(_im2col_data(backend, x, geom), (n, groups, -1, length))
    return xp.reshape(xp.sum(xp.matmul(gr, xp.matrix_transpose(cols)), axis=0), weight_shape)


def _grad_first_order(gd: Any, n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    """The three gradients on arrays (first order): nothing recorded."""
    nxt = n._next  # which inputs need a gradient (``needs_input_grad`` without the tuple)
    geom, groups = n.geom, n.groups
    gx = gw = None
    if nxt[0] is not None:
        gx = input_grad_data(backend, gd, n.saved_data("weight"), geom, groups, n.in_sizes)
    if nxt[1] is not None:
        gw = weight_grad_data(backend, gd, n.saved_data("input"), geom, groups,
                              n.weight_shape)
    gb = None
    if len(nxt) > 2 and nxt[2] is not None:
        gb = backend.xp.sum(gd, axis=(0,) + tuple(range(2, gd.ndim)))
    return gx, gw, gb


def _grad_vjp(g: Tensor, n: RuleNode) -> tuple[Any, ...]:
    """The three gradients in Tensor ops (recorded under ``create_graph``)."""
    need = n.needs_input_grad
    geom, groups = n.geom, n.groups
    batch, o = g.shape[:2]
    gr = g.reshape(batch, groups, o // groups, math.prod(geom[4]))
    gx = gw = gb = None
    if need[0]:
        w = n.weight
        wt = w.reshape(groups, o // groups, -1).transpose(1, 2)
        cols = (wt @ gr).reshape(batch, w.shape[1] * groups, math.prod(geom[0]), *geom[4])
        gx = col2im(cols, n.in_sizes, geom)
    if need[1]:
        x = n.input
        cols = im2col(x, geom).reshape(batch, groups, -1, gr.shape[-1])
        gw = (gr @ cols.transpose(2, 3)).sum(0).reshape(*n.weight_shape)
    if len(need) > 2 and need[2]:
        gb = g.sum((0,) + tuple(range(2, g.ndim)))
    return gx, gw, gb


# the input's gradient reads the weight, the weight's the input; the bias's neither
CONVOLUTION = defop("ConvolutionBackward0", inputs=("input", "weight", "bias"),
                    saves=("input", "weight"), params=("geom", "groups", "in_sizes",
                                                       "weight_shape"),
                    uses=(("weight",), ("input",), ()), vjp=_grad_vjp,
                    first_order=_grad_first_order, jvp=VIA_VJP, exact=True)


def convolution(x: Tensor, weight: Tensor, bias: Tensor | None, geom: Any,
                groups: int) -> Tensor:
    """``x`` ``(N, C, *in)`` convolved with ``weight``, plus ``bias``: one recorded node."""
    backend = x._backend
    if weight._backend is not backend or (bias is not None and bias._backend is not backend):
        # raises for distinct devices; inside vmap, the batching backend of the batched operand
        backend = same_backend("convolution", x, weight, *(() if bias is None else (bias,)))
    in_sizes, weight_shape = tuple(x._data.shape[2:]), tuple(weight._data.shape)
    data = conv_data(backend, x._data, weight._data, geom, groups)
    if bias is not None:
        shape = (1, -1) + (1,) * len(geom[0])
        data = data + backend.xp.reshape(bias._data, shape)
    return CONVOLUTION.record(data, backend, (x, weight, bias), geom=geom, groups=groups,
                              in_sizes=in_sizes, weight_shape=weight_shape)
