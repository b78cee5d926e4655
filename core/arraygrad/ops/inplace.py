"""In-place ops (``add_``, ``mul_``, ``zero_``, ``fill_``, ``copy_``...): one shared mechanism.

An in-place op computes its out-of-place twin, writes the result into the
tensor's own array (so views see it), bumps the version counter shared with
views and detached aliases, and, when recording, moves the tensor onto the
new node ("rebasing" its history). When the op's backward needs the old
value, it is computed from a copy, so saved values stay valid.
"""

from __future__ import annotations

from arraygrad.autograd.grad_mode import _state
from arraygrad.ops._record import backward_node, record
from arraygrad.tensor import Tensor

__all__ = ["apply_inplace", "overwritten"]


def _check_writable(t: Tensor, op: str) -> None:
    if not _state.enabled:
        return
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(
            f"{op}: a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is not None and (base._requires_grad or base._grad_fn is not None):
        raise RuntimeError(
            f"{op}: in-place modification of a view of a tensor that requires grad is not "
            f"supported yet (see docs/differences.md); use an out-of-place op")


def apply_inplace(t: Tensor, op: str, compute) -> Tensor:
    """Run ``compute(source)`` out of place and store the result in ``t``; returns ``t``."""
    _check_writable(t, op)
    tracking = _state.enabled and t._requires_grad
    if tracking:
        # the out-of-place op may save its input: give it a copy of the old value
        src = Tensor._wrap(t._backend.xp.asarray(t._data, copy=True), t._backend)
        src._grad_fn, src._output_nr, src._requires_grad = t._grad_fn, t._output_nr, True
        if t._grad_fn is None:
            src._acc_ref = t._acc_ref
    else:
        src = t
    result = compute(src)
    if result._data.shape != t._data.shape:
        raise RuntimeError(
            f"{op}: output with shape {list(t._data.shape)} doesn't match the broadcast shape "
            f"{list(result._data.shape)}")
    if result._data.dtype != t._data.dtype:
        rd, td = result.dtype, t.dtype
        if rd.category > td.category:
            raise RuntimeError(
                f"{op}: result type {rd.name} can't be cast to the desired output type {td.name}")
        result = result.to(td)
    if result._grad_fn is not None and not tracking and _state.enabled:
        tracking = True  # e.g. x.add_(y) where only y requires grad
    t._data[...] = result._data
    t._bump_version()
    if tracking and result._grad_fn is not None:
        t._grad_fn = result._grad_fn
        t._output_nr = result._output_nr
        t._requires_grad = True
    return t




def _overwrite_backward(node, g):
    """The old value is overwritten: no gradient to it; a tensor source gets ``g`` back."""
    src_meta = node.args
    from arraygrad.ops.broadcast import reduce_grad

    g_old = g * 0 if node._next[0] is not None else None
    g_src = reduce_grad(g, src_meta[0], src_meta[1]) if node._next[1] is not None else None
    return g_old, g_src


FillBackward0 = backward_node("FillBackward0", _overwrite_backward)
CopyBackwards0 = backward_node("CopyBackwards", _overwrite_backward)


def overwritten(old: Tensor, value, op: str) -> Tensor:
    """Out-of-place twin of ``fill_``/``zero_``/``copy_``: ``value`` broadcast to ``old``'s shape."""
    backend = old._backend
    xp = backend.xp
    if isinstance(value, Tensor):
        if value._backend is not backend:
            from arraygrad.ops.transfer import to_backend

            value = to_backend(value, backend)
        vdata = value._data
        if vdata.dtype != old._data.dtype:
            vdata = xp.astype(vdata, old._data.dtype)
        try:
            data = xp.asarray(xp.broadcast_to(vdata, old._data.shape), copy=True)
        except ValueError:
            raise RuntimeError(
                f"{op}: source of shape {list(value.shape)} cannot be broadcast to "
                f"{list(old.shape)}") from None
        return record(data, backend, CopyBackwards0 if op == "copy_" else FillBackward0,
                      (old, value), args=(value._data.shape, value._data.dtype))
    data = xp.full(old._data.shape, value, dtype=old._data.dtype)
    return record(data, backend, FillBackward0, (old, None), args=None)
