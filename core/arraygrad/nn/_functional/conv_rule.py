"""A forward convolution as one rule (PyTorch's ``ConvolutionBackward0``), any number of
spatial dims, with groups, stride, padding and dilation.

* Forward and first-order backward are array formulas (``units``): the backend's kernels
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
``g`` and ``y`` ``(N, O, *out)``; each result a fresh array (no view: ``arraygrad.compile``
keeps a unit's fresh results). It returns ``NotImplemented`` to decline a call (an array or
dtype it does not serve); the portable formula then runs.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

from arraygrad.nn._functional.conv import _col2im_data, _im2col_data, col2im, im2col
from arraygrad.ops.rule import VIA_VJP, defop, fast_paths
from arraygrad.tensor import Tensor
from arraygrad.transform_state import replay_unit

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["CONVOLUTION", "convolution", "units"]


def _dispatch(name: str, backend: Backend, portable: Any, *args: Any) -> Any:
    """The backend's own kernel ``name`` on ``args`` while fast paths are on, ``portable``
    when it has none or it declines (``NotImplemented``); always ``portable`` in reference
    mode (it is the kernels' reference twin). Not ``dispatch_kernel``: these run inside a
    replay unit, which ``arraygrad.compile`` records whole, so the kernel must be called as
    it is, never as a recorded kernel call."""
    kernel = backend.kernel(name) if fast_paths.on else None
    if kernel is not None:
        out = kernel(*args)
        if out is not NotImplemented:
            return out
    return portable(*args)


class _Units:
    """The array formulas of one geometry, each a replay unit (``arraygrad.compile`` records a
    call of one as one instruction, which takes arrays, backends and plain scalars: the
    geometry is bound here instead of passed)."""

    __slots__ = ("forward", "input_grad", "weight_grad")

    def __init__(self, geom: Any, groups: int, in_sizes: tuple[int, ...],
                 weight_shape: tuple[int, ...]) -> None:
        kernel_size, length = math.prod(geom[0]), math.prod(geom[4])
        o = weight_shape[0]

        @replay_unit
        def forward(backend: Backend, x: Any, w: Any) -> Any:
            """The convolution of ``x`` by ``w`` (no bias): ``(N, O, *out)``."""
            def portable(x: Any, w: Any, geom: Any, groups: int) -> Any:
                xp = backend.xp
                n = x.shape[0]
                cols = xp.reshape(_im2col_data(backend, x, geom), (n, groups, -1, length))
                y = xp.matmul(xp.reshape(w, (groups, o // groups, -1)), cols)
                return xp.reshape(y, (n, o) + tuple(geom[4]))
            return _dispatch("conv_forward", backend, portable, x, w, geom, groups)

        @replay_unit
        def input_grad(backend: Backend, g: Any, w: Any) -> Any:
            """The input's gradient: the windows' gradients summed back into the input."""
            def portable(g: Any, w: Any, geom: Any, groups: int, in_sizes: Any) -> Any:
                xp = backend.xp
                n = g.shape[0]
                wr = xp.reshape(w, (groups, o // groups, -1))
                gr = xp.reshape(g, (n, groups, o // groups, -1))
                cols = xp.matmul(xp.matrix_transpose(wr), gr)
                cols = xp.reshape(cols, (n, weight_shape[1] * groups, kernel_size)
                                  + tuple(geom[4]))
                return _col2im_data(backend, cols, in_sizes, geom)
            return _dispatch("conv_input_grad", backend, portable, g, w, geom, groups, in_sizes)

        @replay_unit
        def weight_grad(backend: Backend, g: Any, x: Any) -> Any:
            """The weight's gradient: each output's gradient times its window, summed."""
            def portable(g: Any, x: Any, geom: Any, groups: int, weight_shape: Any) -> Any:
                xp = backend.xp
                n = g.shape[0]
                gr = xp.reshape(g, (n, groups, o // groups, length))
                cols = xp.reshape(_im2col_data(backend, x, geom), (n, groups, -1, length))
                return xp.reshape(xp.sum(xp.matmul(gr, xp.matrix_transpose(cols)), axis=0),
                                  weight_shape)
            return _dispatch("conv_weight_grad", backend, portable, g, x, geom, groups,
                             weight_shape)

        self.forward, self.input_grad, self.weight_grad = forward, input_grad, weight_grad


@functools.lru_cache(maxsize=256)
def units(geom: Any, groups: int, in_sizes: tuple[int, ...],
          weight_shape: tuple[int, ...]) -> _Units:
    """The array formulas of a convolution of this geometry (made once per geometry)."""
    return _Units(geom, groups, in_sizes, weight_shape)


def _grad_first_order(gd: Any, n: RuleNode, backend: Backend) -> tuple[Any, ...]:
    """The three gradients on arrays (first order): nothing recorded."""
    nxt = n._next  # which inputs need a gradient (``needs_input_grad`` without the tuple)
    u = units(n.geom, n.groups, n.in_sizes, n.weight_shape)
    gx = u.input_grad(backend, gd, n.saved_data("weight")) if nxt[0] is not None else None
    gw = u.weight_grad(backend, gd, n.saved_data("input")) if nxt[1] is not None else None
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
    in_sizes, weight_shape = tuple(x._data.shape[2:]), tuple(weight._data.shape)
    data = units(geom, groups, in_sizes, weight_shape).forward(backend, x._data, weight._data)
    if bias is not None:
        shape = (1, -1) + (1,) * len(geom[0])
        data = data + backend.xp.reshape(bias._data, shape)
    return CONVOLUTION.record(data, backend, (x, weight, bias), geom=geom, groups=groups,
                              in_sizes=in_sizes, weight_shape=weight_shape)
