"""Max pooling as one rule (PyTorch's ``MaxPool2DWithIndicesBackward0``, and
``MaxPool3DWithIndicesBackward0`` for three spatial dims), any number of spatial dims, with
stride, padding, dilation and ``ceil_mode``.

* Forward and first-order backward are array formulas: the backend's kernels
  ``"max_pool_forward"`` and ``"max_pool_grad"`` (``Backend.kernel``) when it has them and
  fast paths are on, else the portable formulation every backend runs: the ``im2col``
  windows' maximum and ``argmax``, and the gradient put at each window's winning offset and
  summed back by ``col2im``.
* The recorded backward (``create_graph``, and every backward under
  ``ARRAYGRAD_REFERENCE=1``) is the same formulation in Tensor ops (a constant one-hot of the
  winning offsets selects the gradient; ``col2im`` is a recorded op), so derivatives of any
  order work.

The node keeps the winning kernel offset of each window (an integer array, row-major over
the kernel; the first maximal element wins, NaN counting as the largest), not the input. A backend
kernel gets native arrays and the geometry ``(kernel, dilation, stride, pad_lo, out)``::

    max_pool_forward(x, geom, with_offsets) -> (values, offsets) or, without offsets, values
    max_pool_grad(g, offsets, geom, in_sizes) -> gx

each result a fresh array; ``NotImplemented`` declines a call (the portable formula runs).
Padding never wins (it is the dtype's smallest value).
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any

from arraygrad import dtypes as _dt
from arraygrad.autograd.forward_ad import state as _fw
from arraygrad.nn._functional.windows import _col2im_data, _im2col_data, col2im
from arraygrad.ops.backend_kernels import dispatch_kernel
from arraygrad.ops.elementwise import where
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["max_pool", "pool_data", "pool_grad_data"]


def pool_data(backend: Backend, x: Any, geom: Any, fill: Any, with_offsets: bool) -> Any:
    """``(values, offsets)`` of max pooling ``x`` on arrays (``offsets`` None unless
    ``with_offsets``); ``fill`` pads (``-inf``, or an integer dtype's smallest value)."""
    out = dispatch_kernel("max_pool_forward", backend,
                          functools.partial(_forward, backend, fill), x, geom, with_offsets)
    # (the kernels answer the values alone without offsets: a compiled replay records a
    # kernel's result as arrays, and a None in a tuple would be a graph break)
    return out if with_offsets else (out, None)


def _forward(backend: Backend, fill: Any, x: Any, geom: Any, with_offsets: bool) -> Any:
    xp = backend.xp
    cols = _im2col_data(backend, x, geom, fill)
    values = xp.max(cols, axis=2)
    if not with_offsets:
        return values
    return values, xp.astype(xp.argmax(cols, axis=2), backend.native_dtype(_dt.int64))


def pool_grad_data(backend: Backend, g: Any, offsets: Any, geom: Any,
                   in_sizes: tuple[int, ...]) -> Any:
    """The input's gradient on arrays: each window's gradient at its winning offset."""
    return dispatch_kernel("max_pool_grad", backend, functools.partial(_grad, backend),
                           g, offsets, geom, in_sizes)


def _winners(xp: Any, offsets: Any, geom: Any) -> Any:
    """``(N, C, prod(kernel), *out)`` booleans: which offset of each window won."""
    k = math.prod(geom[0])
    positions = xp.reshape(xp.arange(k, dtype=offsets.dtype), (1, 1, k) + (1,) * len(geom[0]))
    return positions == xp.expand_dims(offsets, axis=2)


def _grad(backend: Backend, g: Any, offsets: Any, geom: Any, in_sizes: tuple[int, ...]) -> Any:
    xp = backend.xp
    share = xp.expand_dims(g, axis=2)
    # ``where``, not a product with the mask: a NaN gradient stays at its own winner
    share = xp.where(_winners(xp, offsets, geom), share, xp.zeros_like(share))
    return _col2im_data(backend, share, in_sizes, geom)


def _first_order(gd: Any, n: RuleNode, backend: Backend) -> Any:
    return pool_grad_data(backend, gd, n.offsets, n.geom, n.in_sizes)


def _vjp(g: Tensor, n: RuleNode) -> Tensor:
    backend = g._backend
    winners = Tensor._wrap(_winners(backend.xp, n.offsets, n.geom), backend)
    share = where(winners, g.unsqueeze(2), 0.0)
    return col2im(share, n.in_sizes, n.geom)


_RULES = {nd: defop(f"MaxPool{nd}DWithIndicesBackward0", params=("geom", "in_sizes", "offsets"),
                    vjp=(_vjp,), first_order=(_first_order,), jvp=VIA_VJP, exact=True)
          for nd in (2, 3)}


def max_pool(x: Tensor, geom: Any, fill: Any, with_indices: bool) -> tuple[Tensor, Any]:
    """``x`` ``(N, C, *in)`` max-pooled over ``geom``: ``(values, offsets)``, one recorded
    node; ``offsets`` (native integer window offsets) is None unless ``with_indices``."""
    backend = x._backend
    need = with_indices or x.requires_grad or _fw.on
    values, offsets = pool_data(backend, x._data, geom, fill, need)
    rule = _RULES[3 if len(geom[0]) == 3 else 2]
    out = rule.record(values, backend, (x,), geom=geom, in_sizes=tuple(x._data.shape[2:]),
                      offsets=offsets)
    return out, offsets
