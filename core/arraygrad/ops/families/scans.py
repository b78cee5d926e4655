"""Scans along a dimension: ``cumprod``, ``cummax``/``cummin``, ``logcumsumexp``, ``diff``.

``cumprod``'s gradient is the reversed running sum of ``g * out / x`` when no element is
zero, and otherwise the exact formula: each element's gradient sums, over the later
outputs, the products of the other elements before them (O(n^2), only used with zeros),
so it stays right, and differentiable again, with zeros. ``cummax``/``cummin`` pick
positions (``_select.pick``; a position picked many times gathers all their gradients).
``logcumsumexp`` runs ``logaddexp`` along the dim (no overflow); its gradient is a reversed
``logcumsumexp`` of the gradient's positive and negative parts in log space (O(n)). ``diff`` is built from ``cat`` and
slicing, which carry its gradient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad import dtypes as _dt
from arraygrad.ops import elementwise as ew
from arraygrad.ops.conjugate import conj_of
from arraygrad.ops.families._select import (
    int64, moved_last, named, pick, pick_rule, restore_last, wrap_dim,
)
from arraygrad.ops.reduction import cumsum
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.shape import cat
from arraygrad.ops.value_checks import any_true
from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode

__all__ = ["cumprod", "cummax", "cummin", "logcumsumexp", "diff"]


def _tensor(input: Any, op: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")


def _triangle(x: Tensor, n: int) -> Tensor:
    """``[k, j] = j >= k`` (bool, n x n) on ``x``'s device."""
    from arraygrad.creation import arange

    pos = arange(n, device=x.device)
    return pos.unsqueeze(0) >= pos.unsqueeze(1)


# -- cumprod --------------------------------------------------------------------------

def _cumprod_with_zeros(g: Tensor, x: Tensor, d: int) -> Tensor:
    """``grad_k = sum_{j >= k} g_j prod_{i <= j, i != k} x_i``, without dividing."""
    from arraygrad.creation import eye

    xt = x.movedim(d, -1)
    gt = g.movedim(d, -1)
    n = int(xt.shape[-1])
    lead = tuple(xt.shape[:-1])
    diag = eye(n, dtype=_dt.bool, device=x.device)
    rows = ew.where(diag, 1.0, xt.unsqueeze(-2).expand(lead + (n, n)))  # [k, i]: x_i, 1 at k
    others = cumprod(rows, -1)                                    # [k, j]: prod_{i<=j, i!=k}
    picked = ew.where(_triangle(x, n), others * gt.unsqueeze(-2), 0.0)
    return picked.sum(-1).movedim(-1, d)


def _cumprod_grad(g: Tensor, n: RuleNode) -> Tensor:
    x, d = n.self, n.dim
    if x.ndim == 0 or x.numel() == 0:
        return g
    # without values (meta) both formulas give the gradient's shape: the cheaper one
    if not any_true(x._backend, x._data == 0):
        # the reversed running sum of g * out, over x (conjugated for complex values)
        return cumsum((g * conj_of(n.result)).flip(d), d).flip(d) / conj_of(x)
    return _cumprod_with_zeros(g, conj_of(x), d)


CUMPROD = defop("CumprodBackward0", jvp=VIA_VJP, saves=("self", "result"), params=("dim",),
                vjp=(_cumprod_grad,), complex=True)


def cumprod(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """Running product along ``dim``; integer and bool products are int64."""
    _tensor(input, "cumprod")
    d = wrap_dim(dim, input, "cumprod")
    backend = input._backend
    out_dtype = dtype or (input.dtype if input.dtype.is_floating_point or input.dtype.is_complex
                          else _dt.int64)
    x = input._data
    native = backend.native_dtype(out_dtype)
    if x.ndim == 0:
        data = backend.xp.astype(x, native)
    else:
        data = backend.xp.cumulative_prod(x, axis=d, dtype=native)
    return CUMPROD.record(data, backend, (input,), dim=d)


def _cumprod_inplace(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    return cumprod(input, dim, dtype=dtype)


# -- cummax / cummin ----------------------------------------------------------------------

CUMMAX = pick_rule("CummaxBackward0")
CUMMIN = pick_rule("CumminBackward0")


def _running(input: Tensor, d: int, is_max: bool) -> Any:
    """The positions of the running max (min) along ``d``: the latest of equal values, and
    the latest NaN once one is seen (PyTorch's rule)."""
    xp = input._backend.xp
    data = input._data if input._data.ndim else xp.reshape(input._data, (1,))
    i64 = int64(input)
    n = int(data.shape[d])
    if n == 0:
        return xp.zeros(data.shape, dtype=i64)
    x = moved_last(xp, data, d)
    floating = xp.isdtype(x.dtype, "real floating")
    best = x[..., 0]
    at = xp.zeros(best.shape, dtype=i64)
    found = [at]
    for i in range(1, n):
        v = x[..., i]
        take = (v >= best) if is_max else (v <= best)
        if floating:
            take = xp.isnan(v) | (~xp.isnan(best) & take)
        best = xp.where(take, v, best)
        at = xp.where(take, xp.full_like(at, i), at)
        found.append(at)
    return restore_last(xp, xp.stack(found, axis=-1), d)


def cummax(input: Tensor, dim: int) -> Any:
    """The running maximum along ``dim`` and where it was found, as ``(values, indices)``."""
    _tensor(input, "cummax")
    d = wrap_dim(dim, input, "cummax")
    return pick(CUMMAX, input, _running(input, d, True), d, True, named("cummax"))


def cummin(input: Tensor, dim: int) -> Any:
    """The running minimum along ``dim`` and where it was found, as ``(values, indices)``."""
    _tensor(input, "cummin")
    d = wrap_dim(dim, input, "cummin")
    return pick(CUMMIN, input, _running(input, d, False), d, True, named("cummin"))


# -- logcumsumexp --------------------------------------------------------------------------

def _reverse_logcumsumexp(x: Tensor, d: int) -> Tensor:
    return logcumsumexp(x.flip(d), d).flip(d)


def _logcumsumexp_grad(g: Tensor, n: RuleNode) -> Tensor:
    """``grad_k = sum_{j >= k} g_j exp(x_k - out_j)``, in O(n) and without overflow: the
    positive and negative parts of ``g`` go through a reversed ``logcumsumexp`` in log
    space (PyTorch's and TensorFlow's formula)."""
    x, d = n.self, n.dim
    if x.ndim == 0 or x.numel() == 0:
        return g
    out = n.result
    lowest = float(g._backend.xp.finfo(g._data.dtype).min)  # log(0), kept finite
    log_abs = ew.log(ew.abs(g))
    positive = ew.where(g > 0, log_abs, lowest)
    negative = ew.where(g < 0, log_abs, lowest)
    return (ew.exp(_reverse_logcumsumexp(positive - out, d) + x)
            - ew.exp(_reverse_logcumsumexp(negative - out, d) + x))


def _logcumsumexp_jvp(t: Tensor, n: RuleNode) -> Tensor:
    # sum_{j<=i} exp(x_j - out_i) t_j, shifted by the max along dim (the vjp's log-of-g
    # trick has no derivative at g = 0, so VIA_VJP cannot be used)
    x, d = n.self, n.dim
    m = x.detach().amax(d, keepdim=True) if x.dim() else x.detach()
    return (((x - m).exp() * t).cumsum(d) if x.dim() else t * 1) * (m - n.result).exp()


LOGCUMSUMEXP = defop("LogcumsumexpBackward0", jvp=_logcumsumexp_jvp, saves=("self", "result"), params=("dim",),
                     vjp=(_logcumsumexp_grad,))


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input)))`` along ``dim``, computed without overflow."""
    _tensor(input, "logcumsumexp")
    d = wrap_dim(dim, input, "logcumsumexp")
    if input.dtype.is_complex:
        raise NotImplementedError("logcumsumexp(): complex tensors are not supported here "
                                  "(docs/complex.md)")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"logcumsumexp(): not implemented for '{input.dtype.name}'")
    backend = input._backend
    xp = backend.xp
    data = input._data
    if data.ndim and data.shape[d] > 1:
        x = moved_last(xp, data, d)
        run = x[..., 0]
        found = [run]
        for i in range(1, int(x.shape[-1])):
            run = xp.logaddexp(run, x[..., i])
            found.append(run)
        data = restore_last(xp, xp.stack(found, axis=-1), d)
    else:
        data = xp.asarray(data, copy=True)
    return LOGCUMSUMEXP.record(data, backend, (input,), dim=d)


# -- diff -------------------------------------------------------------------------------------

def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``logical_xor`` for bool), after
    joining ``prepend`` and ``append`` to ``input`` along it."""
    _tensor(input, "diff")
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"diff(): argument 'n' must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input, "diff")
    parts = []
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is None:
            continue
        if not isinstance(extra, Tensor):
            raise TypeError(f"diff(): argument '{name}' must be Tensor, not "
                            f"{type(extra).__name__}")
        if extra._data.ndim != input._data.ndim:
            raise RuntimeError(f"diff expects prepend or append to be the same dimension as "
                               f"input")
    if prepend is not None:
        parts.append(prepend)
    parts.append(input)
    if append is not None:
        parts.append(append)
    x = cat(parts, d) if len(parts) > 1 else input
    is_bool = x.dtype == _dt.bool
    for _ in range(n):
        size = int(x.shape[d])
        if size == 0:
            break
        later = x.narrow(d, 1, size - 1)
        earlier = x.narrow(d, 0, size - 1)
        x = ew.logical_xor(later, earlier) if is_bool else later - earlier
    return x


FUNCTIONS = {"cumprod": cumprod, "cummax": cummax, "cummin": cummin,
             "logcumsumexp": logcumsumexp, "diff": diff}
METHODS = dict(FUNCTIONS)
INPLACE = {"cumprod_": _cumprod_inplace}
