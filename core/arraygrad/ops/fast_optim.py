"""Optimizers' per-parameter updates on the arrays themselves: the fast path of ``Adam``,
``AdamW``, ``SGD`` and ``clip_grad_norm_`` (its per-gradient norms and scaling).

An Adam step for one parameter is about fifteen Tensor operations (the step count, two
moment updates, the denominator, the update), each paying a Tensor operation's checks and
dispatch: about 100 us a parameter, most of a small model's step (``bert_pretraining``
spent a third of its time there). Here the same array operations run in the same order on
the arrays, in place, so the values are the general path's bit for bit, with the version
counters bumped as the in-place Tensor operations bump them.

Only where that is exactly what the general path computes: fast paths on, nothing recording
(grad mode off, no ``arraygrad.compile`` recording, no forward-mode level), a backend with
writable arrays, dense gradients, and float32/float64 everywhere (float16 and bfloat16 go
through PyTorch's float32 ``opmath`` on the general path). Anything else answers False
before anything is written, and the optimizer runs its Tensor form.
"""

from __future__ import annotations

import math
from typing import Any

from arraygrad.autograd.grad_mode import _state
from arraygrad.ops.fast import arrays_writable
from arraygrad.ops.inplace import before_write
from arraygrad.tensor import Tensor

__all__ = ["adam_step", "grad_norms_data", "scale_in_place", "sgd_step",
           "writable_arrays"]


def writable_arrays(tensors: tuple[Any, ...], written: int, shape: Any) -> bool:
    """Whether every one is a tensor holding the backend's own array type (not a sparse
    tensor's data, not a vmap level's batched array) of one backend with mutable arrays, in
    one wide floating dtype and ``shape``, the first ``written`` of them writable."""
    for t in tensors:
        if not isinstance(t, Tensor):  # (a state entry kept as a number: an old checkpoint's)
            return False
    first = tensors[0]
    backend, data = first._backend, first._data
    kind: Any = backend.array_type
    if kind is None or not backend.mutable_arrays \
            or data.dtype not in backend.wide_floating_natives:
        return False
    dtype = data.dtype
    for i, t in enumerate(tensors):
        d = t._data
        if type(d) is not kind or t._backend is not backend or d.dtype != dtype \
                or d.shape != shape:
            return False
        if i < written:
            flags = getattr(d, "flags", None)  # (NumPy's read-only arrays: a loaded file's)
            if flags is not None and not flags.writeable:
                return False
    return True


def adam_step(p: Tensor, state: dict[str, Any], group: dict[str, Any], lr: float,
              amsgrad: bool) -> bool:
    """One Adam (or AdamW) update of ``p`` and its ``state`` on the arrays; False, having
    written nothing, where only the optimizer's Tensor form computes it exactly."""
    if not arrays_writable() or _state.enabled or type(lr) is not float:
        return False
    grad, step_t = p._grad, state["step"]  # (the slot: the caller read ``.grad`` already)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    written = (p, exp_avg, exp_avg_sq, state["max_exp_avg_sq"]) if amsgrad \
        else (p, exp_avg, exp_avg_sq)
    if grad is None or not writable_arrays((*written, grad), len(written), p._data.shape) \
            or not writable_arrays((step_t,), 1, ()):
        return False
    for t in (*written, step_t):
        before_write(t)  # (an inference tensor's refusal: before anything changes)
    beta1, beta2 = group["betas"]
    wd, eps = group["weight_decay"], group["eps"]
    param, g = p._data, grad._data
    if group["maximize"]:
        g = -g
    if wd != 0:
        if group["decoupled_weight_decay"]:
            param *= 1 - lr * wd
            p._bump_version()
        else:
            g = g + param * wd
    step_t._data += 1
    step = float(step_t._data)
    m, v = exp_avg._data, exp_avg_sq._data
    m += (g - m) * (1 - beta1)  # lerp, as PyTorch
    v *= beta2
    v += g * g * (1 - beta2)
    if amsgrad:
        vmax = state["max_exp_avg_sq"]._data
        vmax[...] = p._backend.xp.maximum(vmax, v)
        v = vmax
    step_size = lr / (1 - beta1 ** step)
    denom = p._backend.xp.sqrt(v) / math.sqrt(1 - beta2 ** step) + eps
    param += m / denom * -step_size
    for t in (*written, step_t, exp_avg_sq):  # (the second moment: mul_, then add_)
        t._bump_version()
    return True


def sgd_step(p: Tensor, state: dict[str, Any] | None, group: dict[str, Any],
             neg_lr: Any) -> bool:
    """One SGD update of ``p`` on the arrays (``state`` its optimizer state, None without
    momentum; ``neg_lr`` the group's ``-lr``); False, having written nothing, where only the
    Tensor form computes it exactly, or makes the momentum buffer (the first step's)."""
    if not arrays_writable() or _state.enabled or type(neg_lr) is not float:
        return False
    grad = p._grad  # (the slot: the caller read ``.grad`` already)
    momentum = group["momentum"]
    buf = None if state is None else state.get("momentum_buffer")
    if momentum != 0 and buf is None:
        return False
    written = (p,) if buf is None else (p, buf)
    if grad is None or not writable_arrays((*written, grad), len(written), p._data.shape):
        return False
    for t in written:
        before_write(t)  # (an inference tensor's refusal: before anything changes)
    param, g = p._data, grad._data
    if group["maximize"]:
        g = -g
    wd = group["weight_decay"]
    if wd != 0:
        g = g + param * wd  # g.add(p, alpha=wd)
    if buf is not None:
        b = buf._data
        b *= momentum  # buf.mul_(momentum).add_(g, alpha=1 - dampening)
        dampening = group["dampening"]
        if dampening == 0:
            b += g
        else:
            b += g * (1 - dampening)
        g = g + b * momentum if group["nesterov"] else b
        buf._bump_version()
        buf._bump_version()
    param += g * neg_lr  # p.add_(g, alpha=-lr)
    p._bump_version()
    return True


def grad_norms_data(tensors: list[Any], ord: float) -> Any:
    """The ``ord``-norm of each of ``tensors`` as ``vector_norm`` computes it, stacked into one
    native array (``clip_grad_norm_``'s first step without a Tensor and a node per gradient),
    or None where the Tensor ops must run: fast paths off, a recording, tensors of several
    backends or kinds, a dtype other than float32/float64 (``vector_norm`` refuses integers)."""
    from arraygrad.ops.families.linalg_ops import vector_norm_data

    if not arrays_writable() or not tensors or not all(
            isinstance(t, Tensor) for t in tensors):
        return None
    backend = tensors[0]._backend
    kind: Any = backend.array_type
    if kind is None:
        return None
    datas = [t._data for t in tensors]
    if any(t._backend is not backend or type(d) is not kind
           or d.dtype not in backend.wide_floating_natives for t, d in zip(tensors, datas)):
        return None
    if (ord < 0 or math.isinf(ord)) and any(d.size == 0 for d in datas):
        return None  # ``vector_norm`` refuses an empty tensor there: its RuntimeError
    op = "linalg.vector_norm"
    return backend.xp.stack([vector_norm_data(op, backend, d, tuple(range(d.ndim)) or None,
                                               False, ord) for d in datas])


def scale_in_place(tensors: list[Any], factor: Any) -> list[Any]:
    """``t.mul_(factor)`` for each of ``tensors`` on its array (one version bump each, the
    same product), ``factor`` a 0-d tensor; the tensors left for the Tensor op (fast paths
    off, a recording, another dtype or backend, a read-only array)."""
    if not arrays_writable() or not isinstance(factor, Tensor):
        return tensors
    value = factor._data
    left = []
    for t in tensors:
        if not _scalable(t, factor):
            left.append(t)
            continue
        before_write(t)  # (an inference tensor's refusal)
        t._data *= value
        t._bump_version()
    return left


def _scalable(t: Any, factor: Any) -> bool:
    """Whether ``t``'s array may be multiplied in place by ``factor``'s 0-d one."""
    return t._backend is factor._backend and writable_arrays((t,), 1, t._data.shape) \
        and factor._data.dtype == t._data.dtype and type(factor._data) is type(t._data)
