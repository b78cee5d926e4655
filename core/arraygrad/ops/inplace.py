"""In-place ops (``add_``, ``mul_``, ``zero_``, ``fill_``, ``copy_``, ``t[i] = v``...): one mechanism.

An in-place op computes its out-of-place twin, writes the result into the
tensor's own array (so views see it), bumps the version counter shared with
views and detached aliases, and, when recording, moves the tensor onto the
new node ("rebasing" its history). When the op's backward needs the old
value, it is computed from a copy, so saved values stay valid.

On a view of a tensor in the graph, the *base* is rebased too: its new value
is "the old base with the view's region replaced by the new values" (an
``index_put`` at the view's flat positions, found by replaying the view on
``arange(base.numel())``), and the view becomes a view of that new base.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from arraygrad import dtypes as _dt
from arraygrad.autograd.forward_ad import set_tangent, state as _fw, tangent_of
from arraygrad.autograd.grad_mode import _state, no_grad
from arraygrad.autograd.mutation_on_saved import _active as _mutation
from arraygrad.autograd.mutation_on_saved import before_write as _mutation_before_write
from arraygrad.immutable_writes import rebind
from arraygrad.ops.fast import inplace_arithmetic
from arraygrad.ops.rule import ELEMENTWISE, defop
from arraygrad.tensor import Tensor


__all__ = ["apply_inplace", "overwritten", "native_arithmetic", "before_write",
           "INFERENCE_INPLACE_MESSAGE"]

INFERENCE_INPLACE_MESSAGE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a "
    "clone to get a normal tensor before doing inplace update.See "
    "https://github.com/pytorch/rfcs/pull/17 for more details.")


def before_write(t: Tensor) -> None:
    """What every in-place write of ``t`` does first: PyTorch's refusal of an update of an
    inference tensor (one made under ``inference_mode``, or a view of one) outside
    ``inference_mode``, then ``allow_mutation_on_saved_tensors``' clone of the saved values
    ``t`` aliases (a no-op outside that context)."""
    if (t._inference or (t._base is not None and t._base._inference)) and not _state.inference:
        raise RuntimeError(INFERENCE_INPLACE_MESSAGE)
    if _mutation.ctx is not None:
        _mutation_before_write(t)


def _check_writable(t: Tensor, op: str) -> None:
    if t._grad_fn is None and t._requires_grad:
        raise RuntimeError(
            f"{op}: a leaf Variable that requires grad is being used in an in-place operation.")
    base = t._base
    if base is None:
        return
    if base._grad_fn is None and base._requires_grad:
        raise RuntimeError(
            f"{op}: a view of a leaf Variable that requires grad is being used in an in-place "
            f"operation.")
    if t._view.multi_output and (base._requires_grad or t._requires_grad):
        raise RuntimeError(
            f"{op}: Output {t._output_nr} of {t.grad_fn.name() if t._grad_fn else 'a split'} is a "
            f"view and is being modified inplace. This view is the output of a function that "
            f"returns multiple views. Such functions do not allow the output views to be "
            f"modified inplace. You should replace the inplace operation by an out-of-place one.")


def _snapshot(t: Tensor) -> Tensor:
    """A copy of ``t``'s current value that stands for ``t`` in the graph."""
    src = Tensor._wrap(t._backend.xp.asarray(t._data, copy=True), t._backend)
    src._grad_fn, src._output_nr, src._requires_grad = t._grad_fn, t._output_nr, t._requires_grad
    if t._grad_fn is None:
        src._acc_ref = t._acc_ref
    if t._fw_grads is not None:  # the op's forward-mode rule reads the old value's tangent
        src._fw_grads = dict(t._fw_grads)
    return src


def _forward_check(t: Tensor, result: Tensor, op: str) -> None:
    """Forward AD: a view's in-place update would have to update its base's tangent too,
    which is not supported (raised before anything is written)."""
    if t._view is not None and (tangent_of(result) is not None or tangent_of(t) is not None
                                or tangent_of(t._base) is not None):
        raise NotImplementedError(
            f"{op}: forward-mode AD does not support in-place operations on views when a dual "
            "tensor is involved (the base's tangent would change too); use an out-of-place op.")


def _carry_tangent(t: Tensor, result: Tensor) -> None:
    """Forward AD: ``t`` takes the tangent of the value written into it (or loses its own)."""
    found = tangent_of(result)
    if found is not None:
        set_tangent(t, found, _fw.dual_level)
    elif t._fw_grads is not None:
        t._fw_grads.pop(_fw.dual_level, None)


def _conform(result: Tensor, t: Tensor, op: str) -> Tensor:
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
    return result


def _write(t: Tensor, data: Any, op: str) -> None:
    check = getattr(data, "check_write_into", None)  # vmap's batched arrays: only into batched t
    if check is not None:
        check(t._data)
    if not t._backend.mutable_arrays:  # nothing to write into: the tensor takes a new array
        rebind(t, data)
        return
    try:
        t._data[...] = data
    except ValueError as exc:  # e.g. NumPy's read-only broadcast views
        raise RuntimeError(
            f"{op}: unsupported operation: more than one element of the written-to tensor refers "
            f"to a single memory location (shape {list(t.shape)}). Please clone() the tensor "
            f"before performing the operation.") from exc


def native_arithmetic(t: Tensor, op: str, other: Any, alpha: Any = 1) -> bool:
    """``t op= other * alpha`` on ``t``'s array directly when ``ops.fast`` takes it (the
    optimizers' updates); False when the general in-place mechanism must run."""
    before_write(t)
    if t._base is not None and not t._backend.mutable_arrays:
        return False  # a view's write must reach its base: the general mechanism does that
    result = inplace_arithmetic(t, op, other, alpha)
    if result is None:
        return False
    if result is not t._data:  # a namespace without true in-place operators
        _write(t, result, op)
    t._bump_version()
    return True


def _rebase(t: Tensor, result: Tensor) -> None:
    t._grad_fn, t._output_nr, t._requires_grad = result._grad_fn, result._output_nr, True


def apply_inplace(t: Tensor, op: str, compute: Callable[..., Any],
                  operands: Sequence[Any] = ()) -> Tensor:
    """Run ``compute(source)`` out of place and store the result in ``t``; returns ``t``.

    ``operands``: the op's other arguments; when one requires grad, the op is recorded
    even if ``t`` does not, and its node may save ``t``'s old value, so that is kept too.
    """
    before_write(t)
    grad_on = _state.enabled
    view = t._view
    if grad_on:
        _check_writable(t, op)
        if view is not None and (t._requires_grad or t._base._requires_grad):
            return _inplace_on_view(t, op, compute)
    tracking = grad_on and (t._requires_grad or any(
        isinstance(o, Tensor) and o._requires_grad for o in operands))
    src = _snapshot(t) if tracking else t  # the op may save its input: keep the old value
    result = _conform(compute(src), t, op)
    if result._grad_fn is not None and t._data.dtype not in t._backend.differentiable_natives:
        # an integer (or bool) tensor cannot require grad: the value lands, the graph does not
        result = result.detach()
    if _fw.on:
        _forward_check(t, result, op)
    if view is not None and ((grad_on and result._grad_fn is not None)
                             or not t._backend.mutable_arrays):
        # a value that requires grad written into a view of a tensor outside the graph; and
        # on an immutable backend every view's write, which must reach the base (no memory
        # is shared)
        return _write_view(t, result, _snapshot(t._base), op)
    _write(t, result._data, op)
    t._bump_version()
    if grad_on and result._grad_fn is not None:
        _rebase(t, result)
    if _fw.on:
        _carry_tangent(t, result)
    return t


def _inplace_on_view(t: Tensor, op: str, compute: Callable[..., Any]) -> Tensor:
    base_old = _snapshot(t._base)
    result = _conform(compute(t._view.replay(base_old)), t, op)
    if _fw.on:
        _forward_check(t, result, op)
    return _write_view(t, result, base_old, op)


def _write_view(t: Tensor, new_value: Tensor, base_old: Tensor, op: str) -> Tensor:
    from arraygrad.creation import arange
    from arraygrad.ops.indexing import index_put

    base = t._base
    with no_grad():
        positions = t._view.replay(arange(base.numel(), device=base.device).reshape(
            tuple(base.shape))).reshape(-1)
    if t.dtype.is_complex != base.dtype.is_complex:
        base_new = _write_across_dtypes(base_old, positions, new_value)
    else:
        flat = index_put(base_old.reshape(-1), (positions,), new_value.reshape(-1))
        base_new = flat.reshape(tuple(base.shape))
    _write(t, new_value._data, op)
    _write(base, base_new._data, op)  # a no-op where t shares memory with base
    base._bump_version()  # one counter for the base and all its views
    if base_new._grad_fn is not None:
        _rebase(base, base_new)
        fresh = t._view.replay(base)
        _rebase(t, fresh)
    t._view.version = t._vc[0]
    return t


def _write_across_dtypes(base_old: Tensor, positions: Tensor, new_value: Tensor) -> Tensor:
    """The new base when a view of the other kind (complex of a real base, real of a complex
    one: ``view_as_complex``, ``view_as_real``, ``.real``) was written: ``positions`` are in
    the view's units (the replay of those views maps positions, ``complex_views``), so the
    write happens in the base seen as the view's kind, then goes back (differentiably)."""
    from arraygrad.ops.complex_views import view_as_complex, view_as_real
    from arraygrad.ops.indexing import index_put

    shape = tuple(base_old.shape)
    if base_old.dtype.is_complex:  # a real view: write into the parts
        parts = view_as_real(base_old).reshape(-1)
        written = index_put(parts, (positions,), new_value.reshape(-1))
        return view_as_complex(written.reshape(shape + (2,)))
    values = view_as_complex(base_old.reshape(-1, 2))  # a complex view of a real base
    written = index_put(values, (positions,), new_value.reshape(-1))
    return view_as_real(written).reshape(shape)


# The old value is overwritten: its gradient is zero; a tensor source gets ``g`` back (the
# recorder sums it to the source's shape and casts it to its dtype).
FILL = defop("FillBackward0", jvp=ELEMENTWISE, inputs=("self", "value"),
             vjp=(lambda g, n: g * 0, lambda g, n: g), complex=True)
COPY = defop("CopyBackwards", jvp=ELEMENTWISE, inputs=("self", "src"),
             vjp=(lambda g, n: g * 0, lambda g, n: g), complex=True)


def overwritten(old: Tensor, value: Any, op: str) -> Tensor:
    """Out-of-place twin of ``fill_``/``zero_``/``copy_``: ``value`` broadcast to ``old``'s shape."""
    backend = old._backend
    xp = backend.xp
    if isinstance(value, Tensor):
        if value._backend is not backend:
            from arraygrad.backends.stacking import outer_backend

            outer = outer_backend(backend, value._backend)  # inside vmap
            if outer is not None:
                backend, xp = outer, outer.xp
            else:
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
        return (COPY if op == "copy_" else FILL).record(data, backend, (old, value))
    _dt.unpacked_int(value)
    if isinstance(value, int) and not old.dtype.is_floating_point and old.dtype is not _dt.bool:
        value = _dt.checked_integer(int(value), old.dtype)  # PyTorch's overflow check
    data = xp.full(old._data.shape, value, dtype=old._data.dtype)
    return FILL.record(data, backend, (old, None))
