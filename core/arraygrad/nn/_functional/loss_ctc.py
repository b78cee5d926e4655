"""``ctc_loss``: Connectionist Temporal Classification (Graves et al., 2006).

The loss of each sample is ``-log`` of the summed probability of every alignment of its target
(blanks between and around the labels, repeats merged), computed with the forward (alpha)
recursion in log space over time, vectorised over the batch and the extended label positions.
The backward is PyTorch's: ``exp(lp) - exp(log(alpha beta)[c] + nll - lp)`` from the beta
recursion, zero past each input length (the ``exp(lp)`` term is PyTorch's: it assumes
``log_probs`` came from ``log_softmax``, whose backward cancels it). As in PyTorch, that
gradient is not differentiable again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import is_grad_enabled
from arraygrad.nn._functional.loss import _quiet_division
from arraygrad.ops import elementwise as ew
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import defop
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.ops.rule import RuleNode

__all__ = ["ctc_loss"]


def _no_double_backward(g: Tensor, n: RuleNode) -> Tensor:
    raise RuntimeError("derivative for ctc_loss_backward is not implemented (the CTC gradient "
                       "is differentiable once, as in PyTorch)")


# the recorded gradient of ``log_probs`` under create_graph: using it again raises
CTC_GRAD = defop("CtcLossBackwardBackward0", inputs=("self",), vjp=(_no_double_backward,))


def _ctc_vjp(g: Tensor, n: RuleNode) -> Tensor:
    """``g_n * (exp(lp) - exp(lcab + nll - lp))`` for ``t < input_length`` (saved as ``term``
    ``= exp(lp) - exp(lcab + nll - lp)`` already masked); ``g`` is the per-sample gradient."""
    grad = n.term * g.reshape(1, -1, 1)
    if is_grad_enabled():
        return CTC_GRAD.record(grad._data, grad._backend, (n.log_probs,))
    return grad


def _ctc_first_order(gd: Any, n: RuleNode, backend: Backend) -> Any:
    return n.saved_data("term") * backend.xp.reshape(gd, (1, -1, 1))


CTC = defop("CtcLossBackward0", inputs=("log_probs",), saves=("term", "log_probs"),
            uses=(("term", "log_probs"),), vjp=(_ctc_vjp,),
            first_order=(_ctc_first_order,), exact=True)


def _lse(xp: Any, *arrays: Any) -> Any:
    """``log(sum(exp(a)))`` of same-shape arrays elementwise, -inf where all are -inf."""
    m = arrays[0]
    for a in arrays[1:]:
        m = xp.maximum(m, a)
    safe = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    total = xp.exp(arrays[0] - safe)
    for a in arrays[1:]:
        total = total + xp.exp(a - safe)
    return xp.log(total) + safe


def _shift(xp: Any, a: Any, k: int, fill: Any) -> Any:
    """``a`` moved ``k`` places right (k > 0) or left (k < 0) along the last axis, filled."""
    if abs(k) >= a.shape[-1]:  # moved out entirely
        return xp.full(a.shape, fill, dtype=a.dtype)
    pad = xp.full((*a.shape[:-1], abs(k)), fill, dtype=a.dtype)
    if k > 0:
        return xp.concat([pad, a[..., :-k]], axis=-1)
    return xp.concat([a[..., -k:], pad], axis=-1)


def _lengths(value: Any, name: str, size: int) -> list[int]:
    """The integer lengths ``value`` (a tensor, a sequence or an int) for each sample."""
    if isinstance(value, Tensor):
        if value.is_floating_point():
            raise RuntimeError(f"ctc_loss: {name} must be integers, got {value.dtype}")
        out = [int(v) for v in value.reshape(-1).tolist()]
    elif isinstance(value, int):
        out = [value]
    else:
        out = [int(v) for v in value]
    if len(out) != size:
        raise RuntimeError(f"{name} must be of size batch_size")
    return out


def _target_rows(targets: Tensor, tl: list[int], c: int, padded: bool) -> list[list[int]]:
    """Each sample's labels, from padded (N, S) or concatenated 1-D ``targets`` (an unbatched
    call's (S,) targets are its one sample's, concatenated: S must equal its length)."""
    rows = targets.to(_dt.int64).tolist() if targets.numel() else []
    if padded:
        width = targets.shape[-1] if targets.ndim else 0
        for length in tl:
            if length > width:
                raise RuntimeError(
                    f"ctc_loss: Expected tensor to have size at least {length} at dimension "
                    f"{targets.ndim - 1}, but got size {width} for argument #2 'targets'")
        if targets.ndim == 2 and targets.shape[0] != len(tl):
            raise RuntimeError(f"ctc_loss: Expected padded targets of batch size {len(tl)}, got "
                               f"{list(targets.shape)}")
        matrix = rows if rows else [[] for _ in tl]
        out = [list(matrix[i][:length]) for i, length in enumerate(tl)]
    else:
        if targets.ndim != 1:
            raise RuntimeError(f"ctc_loss: targets must be 1-D (concatenated) or 2-D (padded), "
                               f"got {targets.ndim}D")
        if sum(tl) != targets.shape[0]:
            raise RuntimeError(f"ctc_loss: Expected tensor to have size {sum(tl)} at dimension "
                               f"0, but got size {targets.shape[0]} for argument #2 'targets'")
        out, start = [], 0
        for length in tl:
            out.append(list(rows[start:start + length]))
            start += length
    for labels in out:
        if any(v < 0 or v >= c for v in labels):
            raise RuntimeError(f"ctc_loss: target labels must be in [0, {c})")
    return out


def _lse_last(xp: Any, x: Any) -> Any:
    """``log(sum(exp(x)))`` over the last axis, -inf where every entry is -inf."""
    m = xp.max(x, axis=-1, keepdims=True)
    m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    return xp.log(xp.sum(xp.exp(x - m), axis=-1)) + m[..., 0]


def _alpha_beta(xp: Any, lp: Any, ext: Any, il: Any, sl: Any, skip: Any,
                need_beta: bool) -> tuple[Any, Any, Any]:
    """The log alphas (T, N, S'), the per-sample nll (N,), and the log betas (or None).

    ``ext``: (N, S') extended labels (blank-padded), ``sl``: (N,) extended lengths ``2S + 1``,
    ``skip``: (N, S') whether position ``s`` may be reached from ``s - 2``.
    """
    t_max, n, _ = lp.shape
    width = ext.shape[1]
    ninf = float("-inf")
    pos = xp.reshape(xp.arange(width), (1, width))
    inside = pos < xp.reshape(sl, (n, 1))
    rows = xp.reshape(xp.arange(n), (n, 1)) * lp.shape[2]

    def emit(t: int) -> Any:  # lp[t, n, ext[n, s]]
        flat = xp.reshape(lp[t, ...], (-1,))
        return xp.reshape(xp.take(flat, xp.reshape(rows + ext, (-1,))), (n, width))

    neg = xp.full((n, width), ninf, dtype=lp.dtype)
    alphas = []
    a = xp.where((pos < 2) & inside, emit(0), neg) if t_max else neg
    for t in range(t_max):
        if t:
            prev = _lse(xp, a, _shift(xp, a, 1, ninf),
                        xp.where(skip, _shift(xp, a, 2, ninf), neg))
            a = xp.where(inside, emit(t) + prev, neg)
        alphas.append(a)
    alpha = xp.stack(alphas) if t_max else xp.full((0, n, width), ninf, dtype=lp.dtype)
    # nll: the last two extended positions at each sample's last time step
    last = xp.reshape(sl, (n, 1)) - 1
    ends = (pos == last) | (pos == last - 1)
    nll_parts = []
    for i in range(n):
        t_end = int(il[i]) - 1
        if t_end < 0:  # an empty input: only the empty target has an alignment
            nll_parts.append(0.0 if int(sl[i]) == 1 else float("inf"))
            continue
        vals = xp.where(ends[i, ...], alpha[t_end, i, ...],
                        xp.full((width,), ninf, dtype=lp.dtype))
        nll_parts.append(-float(_lse_last(xp, vals)))
    nll = xp.asarray(nll_parts, dtype=lp.dtype)
    if not need_beta:
        return alpha, nll, None
    skip_next = _shift(xp, skip, -2, False)  # s + 2 may be reached from s
    betas = [neg] * t_max
    b = neg
    il_col = xp.reshape(il, (n, 1))
    for t in range(t_max - 1, -1, -1):
        init = xp.where(ends & inside, emit(t), neg)
        nxt = _lse(xp, b, _shift(xp, b, -1, ninf), xp.where(skip_next, _shift(xp, b, -2, ninf), neg))
        rec = xp.where(inside, emit(t) + nxt, neg)
        b = xp.where(il_col - 1 == t, init, xp.where(il_col - 1 > t, rec, neg))
        betas[t] = b
    beta = xp.stack(betas) if t_max else alpha
    return alpha, nll, beta


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Tensor | Sequence[int],
             target_lengths: Tensor | Sequence[int], blank: int = 0, reduction: str = "mean",
             zero_infinity: bool = False) -> Tensor:
    """The CTC loss of ``log_probs`` (T, N, C) or unbatched (T, C) against ``targets``, padded
    (N, S) or concatenated (sum(target_lengths),).

    ``reduction='mean'`` divides each sample's loss by its target length (at least 1) and
    averages over the batch; ``zero_infinity`` turns the infinite losses of impossible
    alignments (and their gradients) into zeros.
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    same_backend("ctc_loss", log_probs, *(t for t in (targets, input_lengths, target_lengths)
                                          if isinstance(t, Tensor)))
    unbatched = log_probs.ndim == 2
    if log_probs.ndim not in (2, 3):
        raise RuntimeError(f"ctc_loss: expected log_probs of shape (T, N, C) or (T, C), got "
                           f"{list(log_probs.shape)}")
    if not log_probs.is_floating_point():
        raise RuntimeError(f"ctc_loss: expected floating-point log_probs, got {log_probs.dtype}")
    lp_t = log_probs.unsqueeze(1) if unbatched else log_probs
    t_max, n, c = lp_t.shape
    if not 0 <= blank < c:
        raise RuntimeError("blank must be in label range")
    il = _lengths(input_lengths, "input_lengths", n)
    tl = _lengths(target_lengths, "target_lengths", n)
    for name, values in (("input_lengths", il), ("target_lengths", tl)):
        if min(values, default=0) < 0:
            raise RuntimeError(f"ctc_loss: Expected {name} to have value at least 0, but got "
                               f"value {min(values)}")
    if max(il, default=0) > t_max:
        raise RuntimeError(f"ctc_loss: Expected input_lengths to have value at most {t_max}, "
                           f"but got value {max(il)}")
    labels = _target_rows(targets, tl, c, padded=targets.ndim == 2)
    backend = log_probs._backend
    xp = backend.xp
    width = 2 * max(tl, default=0) + 1
    ext_rows, skip_rows = [], []
    for seq in labels:
        ext = [blank] * width
        skip = [False] * width
        for k, v in enumerate(seq):
            ext[2 * k + 1] = v
            skip[2 * k + 1] = k > 0 and seq[k - 1] != v
        ext_rows.append(ext)
        skip_rows.append(skip)
    lp = lp_t.detach()._data
    idx_dtype = backend.native_dtype(_dt.int64)
    ext_a = xp.asarray(ext_rows, dtype=idx_dtype)
    skip_a = xp.asarray(skip_rows, dtype=xp.bool)
    il_a = xp.asarray(il, dtype=idx_dtype)
    sl_a = xp.asarray([2 * v + 1 for v in tl], dtype=idx_dtype)
    need = is_grad_enabled() and log_probs.requires_grad
    with _quiet_division(xp):  # logs of 0 are -inf by design
        alpha, nll, beta = _alpha_beta(xp, lp, ext_a, il_a, sl_a, skip_a, need)
        infinite = xp.isinf(nll)
        if zero_infinity:
            nll = xp.where(infinite, xp.zeros_like(nll), nll)
        if need:
            term = _ctc_term(xp, lp, alpha, beta, ext_a, sl_a, il_a, nll, c)
            if zero_infinity:
                term = xp.where(xp.reshape(infinite, (1, n, 1)), xp.zeros_like(term), term)
    if need:
        loss = CTC.record(nll, backend, (lp_t,), term=Tensor._wrap(term, backend))
    else:
        loss = Tensor._wrap(nll, backend)
    if reduction == "none":
        return loss.reshape(()) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    denom = loss.new_tensor([max(v, 1) for v in tl])
    return (loss / denom).mean()


def _ctc_term(xp: Any, lp: Any, alpha: Any, beta: Any, ext: Any, sl: Any, il: Any, nll: Any,
              c: int) -> Any:
    """PyTorch's per-element gradient factor ``exp(lp) - exp(lcab + nll - lp)``, zero at
    ``t >= input_length``; ``lcab[t, n, c]``: the log of the summed ``alpha beta`` over the
    extended positions labelled ``c``."""
    t_max, n, width = alpha.shape
    ab = alpha + beta  # (T, N, S')
    pos = xp.reshape(xp.arange(width), (1, width))
    inside = pos < xp.reshape(sl, (n, 1))
    onehot = (xp.reshape(ext, (n, width, 1)) == xp.reshape(xp.arange(c), (1, 1, c)))
    onehot = onehot & xp.reshape(inside, (n, width, 1))  # (N, S', C)
    m = xp.max(ab, axis=2, keepdims=True) if width else xp.zeros((t_max, n, 1), dtype=lp.dtype)
    m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
    summed = xp.sum(xp.expand_dims(xp.exp(ab - m), axis=3) * xp.astype(onehot, lp.dtype), axis=2)
    lcab = xp.log(summed) + m  # (T, N, C)
    term = xp.exp(lp) - xp.exp(lcab + xp.reshape(nll, (1, n, 1)) - lp)
    live = xp.reshape(xp.arange(t_max), (t_max, 1, 1)) < xp.reshape(il, (1, n, 1))
    return xp.where(live, term, xp.zeros_like(term))
