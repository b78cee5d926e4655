"""Loss functions of ``nn.functional`` with PyTorch's reductions and weighting rules."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.ops.arguments import tensor_arg
from arraygrad.amp import state as _amp
from arraygrad import dtypes as _dt
from arraygrad.transform_state import array_kernel
from arraygrad.autograd.forward_ad import state as _fw
from arraygrad.autograd.grad_mode import _state
from arraygrad.nn import _ops
from arraygrad.ops import activation as _act, elementwise as ew
from arraygrad.ops import fast as _fast
from arraygrad.ops.backend_kernels import dispatch_kernel
from arraygrad.ops.casting import in_opmath
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.promotion import same_backend
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.value_checks import any_true, index_range
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode
    from arraygrad.backends.contract import Backend

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "legacy_get_string"]


def legacy_get_string(size_average: Any, reduce: Any, emit_warning: bool = True) -> str:
    """The ``reduction`` string the deprecated ``size_average``/``reduce`` pair stands for."""
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use "
                      f"reduction='{ret}' instead.", UserWarning, stacklevel=3)
    return ret


def _reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    return reduction


def _reduce(loss: Any, reduction: str) -> Any:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_same_size(input: Tensor, target: Tensor, stacklevel: int = 3) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.", UserWarning, stacklevel=stacklevel)


def _weighted(loss: Tensor, input: Tensor, weight: Tensor | None, reduction: str) -> Tensor:
    """``loss * weight`` reduced, the weighted mean dividing by ``weight``'s sum (PyTorch's
    ``weight=`` of ``mse_loss``/``l1_loss``); the plain reduction without a weight."""
    if weight is None:
        return _reduce(loss, reduction)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                         "'mean', 'sum'.")
    weighted = loss * weight
    if reduction == "mean":
        return weighted.sum() / weight.sum()
    return _reduce(weighted, reduction)


def mse_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean squared error ``(x - y)^2`` (each term times ``weight``, and the mean over
    ``weight``'s sum, when given)."""
    check_kernel_dtype("mse_loss", input)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("mse_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    refuse_complex_forward("mse", input, target)
    diff = input - target
    return _weighted(diff * diff, input, weight, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Tensor | None = None) -> Tensor:
    """Mean absolute error ``|x - y|`` (weighted as ``mse_loss``)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("l1_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    return _weighted(ew.abs(input - target), input, weight, reduction)


def _clipped_slope_rule(name: str, bound: str, scale: bool) -> Any:
    """The rule of an elementwise Huber-type loss of ``d = self - target``: its gradient is
    PyTorch's clipped slope ``clamp(d, -b, b)`` (``/ b`` for ``smooth_l1``), so an infinite
    ``d`` gets the slope ``+-1`` (a composition through ``where`` would give ``0 * inf = NaN``)
    and a NaN ``d`` a NaN gradient, as in PyTorch."""
    def slope(g: Tensor, n: RuleNode) -> Tensor:
        b = getattr(n, bound)
        clipped = ew.clamp(n.self - n.target, -b, b)
        return g * (clipped / b if scale else clipped)

    return defop(name, jvp=VIA_VJP, inputs=("self", "target"), saves=("self", "target"), params=(bound,),
                 vjp=(slope, lambda g, n: -slope(g, n)))


SMOOTH_L1 = _clipped_slope_rule("SmoothL1LossBackward0", "beta", True)
HUBER = _clipped_slope_rule("HuberLossBackward0", "delta", False)


def _huber_type(rule: Any, input: Tensor, target: Tensor, bound: float, scale: bool,
                **params: float) -> Tensor:
    """``0.5 d^2 (/ b)`` where ``|d| < b``, else ``|d| - 0.5 b`` (``* b`` for Huber), as one
    node of ``rule`` (the arrays of the promoted difference, recorded with both inputs)."""
    diff = input.detach() - target.detach()
    d = diff._data
    backend = diff._backend  # both operands' (inside vmap: the batched one's)
    xp = backend.xp

    def formula(d: Any) -> Any:
        a = xp.abs(d)
        if scale:
            return xp.where(a < bound, a * a * (0.5 / bound), a - 0.5 * bound)
        return xp.where(a < bound, a * a * 0.5, (a - 0.5 * bound) * bound)

    return rule.record(in_opmath(backend, formula, d), backend, (input, target), **params)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``."""
    check_kernel_dtype("smooth_l1_loss", input)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("smooth_l1_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    _check_same_size(input, target)
    refuse_complex_forward("smooth_l1", input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:  # PyTorch's l1 loss (``abs``: a zero gradient at a NaN difference)
        return _reduce(ew.abs(input - target), reduction)
    return _reduce(_huber_type(SMOOTH_L1, input, target, beta, True, beta=beta), reduction)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``."""
    check_kernel_dtype("huber_loss", input)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("huber_loss", input, target)
    _check_same_size(input, target)
    refuse_complex_forward("huber", input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    loss = _huber_type(HUBER, input, target, delta, False, delta=delta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _class_dim(input: Tensor) -> int:
    return 0 if input.ndim == 1 else 1


def _weight_view(weight: Tensor, input: Tensor) -> Tensor:
    """``weight`` (one entry per class) shaped to broadcast along the class dimension."""
    shape = [1] * input.ndim
    shape[_class_dim(input)] = weight.shape[0]
    return weight.reshape(tuple(shape))


def _nll_parts(input: Tensor, target: Tensor, weight: Tensor | None,
               ignore_index: Any) -> tuple[Any, ...]:
    """Per-element ``-w[t] * input[t]`` (0 where ignored) and the matching weights ``w[t]``."""
    if not isinstance(target, Tensor) or target.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"expected scalar type Long but found {getattr(target, 'dtype', type(target))}")
    unbatched = input.ndim == 1
    if unbatched:
        if target.ndim != 0:
            raise RuntimeError(
                "0D or 1D target tensor expected, multi-target not supported")
        input, target = input.unsqueeze(0), target.unsqueeze(0)
    elif input.ndim < 1 or target.ndim != input.ndim - 1:
        raise ValueError(
            f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got {target.shape}")
    if target.shape[0] != input.shape[0]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
            f"({target.shape[0]}).")
    if tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(
            f"Expected target size {[input.shape[0]] + list(input.shape[2:])}, got {target.shape}")
    n_classes = input.shape[1]
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_classes):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes but "
            f"got weight tensor of shape: {weight.shape}")
    valid = target != ignore_index
    safe = ew.where(valid, target, 0)
    found = index_range(target._backend, safe._data)
    if found is not None:
        lo, hi = found
        if lo < 0 or hi >= n_classes:
            bad = hi if hi >= n_classes else lo
            raise IndexError(f"Target {bad} is out of bounds.")
    picked = input.gather(1, safe.unsqueeze(1)).squeeze(1)
    mask = valid.to(input.dtype)
    w = mask if weight is None else weight[safe] * mask
    loss = ew.where(valid, -picked * w, 0.0)  # an ignored target's pick may be inf or NaN
    if unbatched:
        loss, w = loss.squeeze(0), w.squeeze(0)
    return loss, w


def _nll_grad_data(gd: Any, n: RuleNode, backend: Backend) -> Any:
    """``NLL``'s first-order gradient on arrays: the saved picks scaled by ``g``."""
    if n.reduction == "none":  # per-row losses: each row's gradient scales its row
        gd = backend.xp.reshape(gd, (-1, 1))
    return n.saved_data("picks") * gd


# ``picks``: -1/denominator at each row's target class, 0 elsewhere (the gradient of the
# loss, computed with the forward's one-hot)
NLL = defop("NllLossBackward0", jvp=VIA_VJP, saves=("picks",), params=("reduction",),
            vjp=(lambda g, n: n.picks * (g.unsqueeze(1) if n.reduction == "none" else g),),
            first_order=(_nll_grad_data,), exact=True)


_BCE_EPS = 1e-12  # PyTorch's floor of x (1 - x) in the BCE gradient


def _quiet_division(xp: Any) -> Any:
    """A context that silences the namespace's floating-point warnings where it has them
    (NumPy's ``errstate``); a no-op elsewhere."""
    import contextlib

    errstate = getattr(xp, "errstate", None)
    return errstate(all="ignore") if errstate is not None else contextlib.nullcontext()


@array_kernel
def _nll_data(xp: Any, x: Any, onehot: Any, denom: Any, reduction: str) -> Any:
    """NLL's value from the log-probabilities ``x`` and the targets' ``onehot`` rows:
    per row (``reduction="none"``), else summed and divided by ``denom``."""
    # each row's pick, not a product with the one-hot row: an inf or NaN of another class
    # must not reach the loss (PyTorch reads only the target's entry)
    picked = xp.where(onehot != 0, x, xp.zeros(x.shape, dtype=x.dtype))
    if reduction == "none":
        return -xp.sum(picked, axis=1)
    if type(denom) is int and denom:  # a count of targets known not zero: no 0/0 to quiet
        return -xp.sum(picked) / denom
    with _quiet_division(xp):  # every target ignored: 0/0, a NaN loss as in PyTorch
        return -xp.sum(picked) / denom


@array_kernel
def _nll_taken(xp: Any, x: Any, t: Any, denom: Any, reduction: str) -> Any:
    """``_nll_data`` when every target is a class (none ignored): each row's entry taken at
    its flat position, O(rows) where the one-hot pick reads every class of every row."""
    n, c = x.shape
    picked = xp.take(xp.reshape(x, (-1,)), xp.arange(0, n * c, c, dtype=t.dtype) + t)
    if reduction == "none":
        return -picked
    return -xp.sum(picked) / denom


def _nll_class_rows(xp: Any, x: Any, t: Any, denom: int, reduction: str) -> tuple[Any, Any]:
    """NLL of (N, C) log-probabilities ``x`` whose class targets ``t`` are all classes (none
    ignored): ``(losses, picks)``, the picks the gradient's rows (``-1/denom`` at each row's
    target, ``-0.0`` elsewhere). The portable form of the backend kernel ``nll_class_rows``
    (the NumPy backend's: one position per row, no one-hot compare)."""
    data = _nll_taken(xp, x, t, denom, reduction)
    picks = _fast.onehot_data(xp, t, x.shape[1], x.dtype)
    picks *= -1.0 / denom  # a fresh array: scaled in place
    return data, picks


def _nll_2d(input: Tensor, target: Tensor, ignore_index: int, reduction: str) -> Tensor:
    """NLL of a (N, C) input with (N,) class targets and no class weights: one node."""
    backend = input._backend
    xp = backend.xp
    x = input._data
    n, c = x.shape
    t = target._data
    # the gradient's rows (one-hot, scaled) are saved only for a node or a tangent to read:
    # an evaluation loop under no_grad builds none
    wanted = _fw.on or (_state.enabled and input._requires_grad)
    # (without values, meta: no target to read, the general path's shapes)
    if backend.holds_data and _fast.class_targets(xp, t, c, ignore_index):
        # every target a class, none ignored: each row's entry at its flat position, and the
        # gradient's rows with it in one kernel when a node or a tangent will read them
        denom = n if reduction == "mean" else 1
        if not wanted:
            data = _nll_taken(xp, x, t, denom, reduction)
            return NLL.record(data, backend, (input,), picks=None, reduction=reduction)
        data, picks = dispatch_kernel("nll_class_rows", backend, _nll_class_rows, xp, x, t,
                                      denom, reduction)
        return NLL.record(data, backend, (input,), picks=Tensor._wrap(picks, backend),
                          reduction=reduction)
    valid = t != ignore_index
    safe = xp.where(valid, t, xp.zeros_like(t))
    if n and backend.holds_data:  # one yes/no read (a compiled step guards it, not each
        # batch's label range)
        lo, hi = xp.min(safe), xp.max(safe)
        if bool(lo < 0) or bool(hi >= c):
            lo, hi = int(lo), int(hi)
            raise IndexError(f"Target {hi if hi >= c else lo} is out of bounds.")
    classes = xp.arange(c, dtype=t.dtype)
    onehot = xp.astype((xp.reshape(safe, (n, 1)) == classes) & xp.reshape(valid, (n, 1)),
                       x.dtype)
    count = xp.sum(xp.astype(valid, x.dtype))
    denom = count if reduction == "mean" else 1
    data = _nll_data(xp, x, onehot, denom, reduction)
    if reduction == "none":
        onehot *= -1.0  # the gradient of each row's pick
    else:
        if reduction == "mean" and backend.holds_data and count == 0:
            pass  # every target ignored: the picks stay zero, a zero gradient as in PyTorch
        else:
            onehot *= -1.0 / denom  # a fresh array: scaled in place
    return NLL.record(data, backend, (input,), picks=Tensor._wrap(onehot, backend),
                      reduction=reduction)


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average: Any = None,
             ignore_index: int = -100,
             reduce: Any = None, reduction: str = "mean") -> Tensor:
    """Negative log likelihood of class-index ``target`` under log-probabilities ``input``.

    ``'mean'`` divides by the summed weights of the non-ignored targets.
    """
    tensor_arg("nll_loss", input)
    check_kernel_dtype("nll_loss", input,
                       "nll_loss2d_forward_out_frame" if input.ndim > 2 else None)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("nll_loss", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if _fast_nll(input, target, weight, reduction):
        return _nll_2d(input, target, ignore_index, reduction)
    loss, w = _nll_parts(input, target, weight, ignore_index)
    if reduction == "mean":
        return loss.sum() / w.sum()
    return _reduce(loss, reduction)


def _fast_nll(input: Tensor, target: Tensor, weight: Tensor | None, reduction: str) -> bool:
    """Whether the one-node NLL applies: (N, C) input, (N,) integer targets, no weights."""
    if weight is not None or not isinstance(target, Tensor) or target._backend is not input._backend:
        return False
    x, t = input._data, target._data
    return (x.ndim == 2 and t.ndim == 1 and t.shape[0] == x.shape[0]
            and target.dtype in (_dt.int64, _dt.int32) and reduction in ("mean", "sum", "none"))


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                  size_average: Any = None, ignore_index: int = -100,
                  reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)`` for class indices, or ``-sum(p log q)`` for
    class probabilities (``target`` floating, same shape as ``input``); optional label smoothing.
    """
    if not isinstance(input, Tensor):
        tensor_arg("cross_entropy", input)  # raises
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("cross_entropy", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = _class_dim(input)
    logp = _act.log_softmax(input, cdim)
    if label_smoothing <= 0.0 and _fast_nll(logp, target, weight, reduction):
        return _nll_2d(logp, target, ignore_index, reduction)  # (class targets: not floating)
    n_classes = input.shape[cdim]
    if target.is_floating_point():
        return _cross_entropy_probs(logp, target, weight, ignore_index, reduction,
                                    label_smoothing, cdim, n_classes)
    loss, w = _nll_parts(logp, target, weight, ignore_index)
    nll = loss.sum() / w.sum() if reduction == "mean" else _reduce(loss, reduction)
    if label_smoothing <= 0.0:
        return nll
    weighted = logp if weight is None else logp * _weight_view(weight, logp)
    smooth = -weighted.sum(cdim) * (target != ignore_index).to(logp.dtype)
    if reduction == "mean":
        smooth = smooth.sum() / w.sum()
    else:
        smooth = _reduce(smooth, reduction)
    return nll * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)


def _cross_entropy_probs(logp: Any, target: Tensor, weight: Tensor | None, ignore_index: Any,
                         reduction: str, label_smoothing: Any, cdim: Any,
                         n_classes: Any) -> Tensor:
    if tuple(target.shape) != tuple(logp.shape):
        raise RuntimeError(
            f"Expected target size {list(logp.shape)}, got {list(target.shape)}")
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * _weight_view(weight, logp)
    if reduction == "none":
        return -prod.sum(cdim)
    total = -prod.sum()
    if reduction == "sum":
        return total
    return total / (logp.numel() / n_classes)


# PyTorch's BCE: each log clamped at -100 (so a 0 or 1 probability gives a loss of 100 at
# most), the input's gradient ``(x - t) / max(x (1 - x), 1e-12)`` (finite at 0 and 1) and the
# target's ``log(1 - x) - log(x)``
BCE = defop("BinaryCrossEntropyBackward0", jvp=VIA_VJP, inputs=("self", "target"), saves=("self", "target"),
            vjp=(lambda g, n: g * (n.self - n.target)
                 / ew.clamp(n.self * (1 - n.self), min=_BCE_EPS),
                 lambda g, n: g * (ew.log(1 - n.self) - ew.log(n.self))))


def _bce_elements(input: Tensor, target: Tensor) -> Tensor:
    """``-(t max(log x, -100) + (1 - t) max(log(1 - x), -100))`` elementwise, one node, on
    the operands' one backend (inside vmap: the batched one's, as every elementwise op)."""
    backend = same_backend("binary_cross_entropy", input, target)
    xp = backend.xp
    x, t = input._data, (target.detach().to(input.dtype))._data
    with _quiet_division(xp):  # log(0) = -inf, clamped
        log_x = xp.maximum(xp.log(x), xp.asarray(-100.0, dtype=x.dtype))
        log_1mx = xp.maximum(xp.log(1 - x), xp.asarray(-100.0, dtype=x.dtype))
    data = -(t * log_x + (1 - t) * log_1mx)
    return BCE.record(data, backend, (input, target))


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """``-(t log x + (1 - t) log(1 - x))`` for probabilities ``input`` (logs clamped at -100)."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("binary_cross_entropy", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    backend = same_backend("binary_cross_entropy", input, target,
                           *(() if weight is None else (weight,)))
    # as PyTorch's kernel: NaN is outside [0, 1] too
    if any_true(backend, ~((input._data >= 0) & (input._data <= 1))):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if any_true(backend, ~((target._data >= 0) & (target._data <= 1))):
        raise RuntimeError("all elements of target should be between 0 and 1")
    loss = _bce_elements(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None) -> Tensor:
    """BCE of ``sigmoid(input)`` computed stably from the logits; ``pos_weight`` scales positives."""
    check_kernel_dtype("binary_cross_entropy_with_logits", input)
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("binary_cross_entropy_with_logits", input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    neg_log_sig = -_ops.log_sigmoid(input)  # -log(sigmoid(x)) = softplus(-x)
    if pos_weight is not None:
        log_weight = (pos_weight - 1) * target + 1
        loss = (1 - target) * input + log_weight * neg_log_sig
    else:
        loss = (1 - target) * input + neg_log_sig
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def _xlogy(x: Tensor, y: Tensor) -> Tensor:
    """``x * log(y)``, 0 where ``x == 0`` (with a finite gradient there)."""
    pos = x != 0
    safe_y = ew.where(pos, y, ew.full_like_scalar(y, 1.0))
    return ew.where(pos, x * ew.log(safe_y), ew.full_like_scalar(y, 0.0))


def kl_div(input: Tensor, target: Tensor, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """KL divergence ``sum t (log t - input)`` with ``input`` log-probabilities.

    ``reduction='batchmean'`` divides the sum by the batch size (the true KL
    divergence); ``'mean'`` divides by the element count, with PyTorch's warning.
    """
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, target = _amp.cast("kl_div", input, target)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.", UserWarning, stacklevel=2)
    if log_target:
        loss = ew.exp(target) * (target - input)
    else:
        loss = _xlogy(target, target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.ndim != 0 else total
    return _reduce(loss, reduction)
