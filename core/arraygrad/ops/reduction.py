"""Reductions: ``sum``, ``mean``, ``prod``, ``max``/``min``, ``amax``/``amin``,
``argmax``/``argmin``, ``var``/``std``, ``logsumexp``, ``norm``, ``cumsum``, ``all``/``any``.

All take ``dim`` (int, tuple or None; ``axis`` is an alias) and ``keepdim``. Each
differentiable op is its forward on native arrays plus a rule (``ops.rule``) named and
saving as PyTorch's does (``dim``, ``keepdim``, ``self_sym_sizes``, ``self``, ``result``,
``indices``); the backward formulas put the reduced dimensions back with ``_unreduce``.
The cast back to an input's dtype (``sum(x, dtype=...)``, ``cumsum``) is the recorder's.
"""

from __future__ import annotations

import collections
import math
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.backends.scalar_operands import scalar_operand
from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad.amp import state as _amp
from arraygrad import dtypes as _dt
from arraygrad.ops.arguments import normalize_dims, tensor_arg
from arraygrad.ops import elementwise as ew
from arraygrad.ops.casting import in_opmath, to_dtype, to_float_data, to_native
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.conjugate import conj_of
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.value_checks import any_true
from arraygrad.tensor import Tensor
from arraygrad.tensor_sparse import SparseTensor, sparse_ops

if TYPE_CHECKING:
    from arraygrad.ops.rule import RuleNode

__all__ = [
    "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std",
    "logsumexp", "norm", "cumsum", "all", "any", "return_types",
]


class return_types:
    """Named results of reductions that return values and indices (``torch.return_types``)."""

    max = collections.namedtuple("max", ["values", "indices"])
    min = collections.namedtuple("min", ["values", "indices"])


def _dims(input: Tensor, dim: Any, axis: Any, op: str) -> Tensor:
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{op}: got both dim and axis")
        dim = axis
    return normalize_dims(dim, input._data.ndim, op)


def _unreduce(g: Tensor, shape: tuple[Any, ...], dims: Any, keepdim: bool) -> Tensor:
    """``g`` (the gradient of a reduction) broadcast back to the input's ``shape``."""
    if dims is None:
        dims = tuple(range(len(shape)))
    if not keepdim and dims:
        g = g.reshape(tuple(1 if i in dims else n for i, n in enumerate(shape)))
    return g.expand(shape)


def _unreduce_data(xp: Any, gd: Any, shape: tuple[Any, ...], dims: Any, keepdim: bool) -> Any:
    """``_unreduce`` on a native array (first-order backward): a broadcast view of ``gd``."""
    if dims is None:  # a reduction of every dim: ``gd`` is 0-d (or all ones with keepdim)
        return xp.broadcast_to(gd, shape)
    if not keepdim and dims:
        gd = xp.reshape(gd, tuple(1 if i in dims else n for i, n in enumerate(shape)))
    return xp.broadcast_to(gd, shape)


def _count(shape: tuple[Any, ...], dims: Any) -> int:
    if dims is None:
        return math.prod(shape)
    return math.prod(shape[d] for d in dims)


def _shape(n: RuleNode) -> tuple[Any, ...]:
    """The reduced input's shape, read from the node's saved ``self``."""
    return tuple(n.self._data.shape)


# -- rules of the reductions over all dims (``...Backward0``) or some (``...Backward1``) --------

_DIM_PARAMS = ("dim", "keepdim")


def _pair(name0: str, name1: str, grad: Callable[..., Any], saves: Any = (),
          sizes: bool = False, jvp: Callable[..., Any] | None = None,
          complex: bool = False, first: Callable[..., Any] | None = None) -> tuple[Any, ...]:
    """The rules of a reduction over all dims (``name0``: PyTorch saves no ``dim``/``keepdim``)
    and over given dims (``name1``), sharing ``grad(g, node, dims, keepdim)``. ``sizes``: the
    input's shape is a param (``self_sym_sizes``), for rules that save no input. ``jvp``:
    ``jvp(t, node, dims, keepdim)``, the forward-mode rule (default: derived, ``VIA_VJP``).
    ``complex``: ``grad`` holds for complex tensors. ``first``: ``grad`` on native arrays,
    ``first(gd, node, backend, dims, keepdim)``, the first-order formula (None: take ``grad``)."""
    extra = ("self_sym_sizes",) if sizes else ()
    return (defop(name0, saves=saves, params=extra, complex=complex,
                  vjp=(lambda g, n: grad(g, n, None, False),),
                  first_order=None if first is None else (
                      lambda gd, n, b: first(gd, n, b, None, False),),
                  jvp=VIA_VJP if jvp is None else (lambda t, n: jvp(t, n, None, False))),
            defop(name1, saves=saves, params=_DIM_PARAMS + extra, complex=complex,
                  vjp=(lambda g, n: grad(g, n, n.dim, n.keepdim),),
                  first_order=None if first is None else (
                      lambda gd, n, b: first(gd, n, b, n.dim, n.keepdim),),
                  jvp=VIA_VJP if jvp is None else (lambda t, n: jvp(t, n, n.dim, n.keepdim))))


def _linear_jvp(reduce: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """The forward-mode rule of a linear reduction: the reduction of the tangent."""
    return lambda t, n, dims, keepdim: reduce(t) if dims is None else reduce(t, dims, keepdim)


def _record_pair(pair: Any, data: Any, input: Tensor, dims: Any, keepdim: bool,
                 sizes: bool = False) -> Tensor:
    """Record ``data`` with the all-dims rule of ``pair`` when ``dims`` is None, else the other."""
    extra = {"self_sym_sizes": tuple(input._data.shape)} if sizes else {}
    if dims is None:
        return pair[0].record(data, input._backend, (input,), **extra)
    return pair[1].record(data, input._backend, (input,), dim=dims, keepdim=keepdim, **extra)


# -- sum / mean / prod --------------------------------------------------------

SUM = _pair("SumBackward0", "SumBackward1", sizes=True, jvp=_linear_jvp(lambda *a: sum(*a)),
            grad=lambda g, n, dims, keepdim: _unreduce(g, n.self_sym_sizes, dims, keepdim),
            first=lambda gd, n, b, dims, keepdim: _unreduce_data(b.xp, gd, n.self_sym_sizes,
                                                                 dims, keepdim),
            complex=True)


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
        axis: Any = None) -> Tensor:  # noqa: A001
    """Sum over ``dim`` (all dims by default); integer and bool sums are int64."""
    tensor_arg("sum", input)
    if input.__class__ is SparseTensor:
        return sparse_ops.sum(input, dim if axis is None else axis, keepdim, dtype=dtype)
    dims = _dims(input, dim, axis, "sum")
    backend = input._backend
    d = dtype if dtype is not None else input.dtype
    if not (d.is_floating_point or d.is_complex) and d is not _dt.int64 and dtype is None:
        d = _dt.int64
    native = backend.native_dtype(d)
    data = backend.xp.sum(input._data, axis=dims, keepdims=keepdim, dtype=native)
    return _record_pair(SUM, data, input, dims, keepdim, sizes=True)


def _mean_grad(g: Tensor, n: RuleNode, dims: Any, keepdim: bool) -> Tensor:
    shape = n.self_sym_sizes
    # divide the small gradient, then expand: the result stays a broadcast view
    return _unreduce(g / _count(shape, dims), shape, dims, keepdim)


def _mean_grad_data(gd: Any, n: RuleNode, backend: Any, dims: Any, keepdim: bool) -> Any:
    """``_mean_grad`` on native arrays, for float32/float64 gradients (a reduced-precision or
    complex one takes ``_mean_grad``, whose division computes as the ``/`` operator does)."""
    if gd.dtype not in backend.wide_floating_natives or gd.dtype not in backend.weak_scalar_natives:
        return None
    shape = n.self_sym_sizes
    # the division as ``g / count`` makes it on the fast path (the same operand, the same op)
    count = scalar_operand(backend, _count(shape, dims), gd.dtype)
    return _unreduce_data(backend.xp, gd / count, shape, dims, keepdim)


MEAN = _pair("MeanBackward0", "MeanBackward1", _mean_grad, sizes=True,
             jvp=_linear_jvp(lambda *a: mean(*a)), complex=True, first=_mean_grad_data)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
         axis: Any = None) -> Tensor:
    """Mean over ``dim`` (all dims by default); floating dtypes only, as in PyTorch."""
    tensor_arg("mean", input)
    dims = _dims(input, dim, axis, "mean")
    if dtype is not None:
        input = to_dtype(input, dtype)
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(
            f"mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {input.dtype.name}")
    data = input._backend.xp.mean(input._data, axis=dims, keepdims=keepdim)
    return _record_pair(MEAN, data, input, dims, keepdim, sizes=True)


def _prod_of_others(x: Tensor, dims: Any) -> Tensor:
    """For each element, the product of the other elements of its slice over ``dims``.

    Computed without division, so it is right (and differentiable again) when a
    slice holds zeros: the reduced dims are moved last and flattened to ``n``,
    each element's row of ``n`` copies has its own position replaced by 1, and
    the rows are multiplied out (O(n^2), only used when there are zeros).
    """
    ndim = x.ndim
    if ndim == 0:
        return x * 0 + 1  # ones, in the graph
    red = tuple(range(ndim)) if dims is None else tuple(dims)
    kept = tuple(i for i in range(ndim) if i not in red)
    order = kept + red
    xt = x.permute(order)
    kept_shape = tuple(x.shape[i] for i in kept)
    red_shape = tuple(x.shape[i] for i in red)
    n = math.prod(red_shape)
    flat = xt.reshape(kept_shape + (n,))
    from arraygrad.creation import eye

    diag = eye(n, dtype=_dt.bool, device=x.device)
    rows = ew.where(diag, 1.0, flat.unsqueeze(-2).expand(kept_shape + (n, n)))
    others = prod(rows, dim=-1).reshape(kept_shape + red_shape)
    inverse = [0] * ndim
    for i, d in enumerate(order):
        inverse[d] = i
    return others.permute(tuple(inverse))


def _prod_grad(g: Tensor, n: RuleNode, dims: Any, keepdim: bool) -> Tensor:
    x = n.self
    g_full = _unreduce(g, _shape(n), dims, keepdim)
    # asked of the arrays, not ``bool(tensor)`` (which vmap refuses as data-dependent control
    # flow): inside vmap the check reads "in any sample" (``BatchedArray.reduced``), and both
    # branches are right for every sample
    if not any_true(x._backend, x._data == 0):  # (meta: no values, no zeros to care for)
        # no zeros: the product of the others is prod / x
        out = prod(x, dim=dims, keepdim=True)
        return g_full * conj_of(out / x)
    return g_full * conj_of(_prod_of_others(x, dims))


PROD = _pair("ProdBackward0", "ProdBackward1", _prod_grad, saves=("self",), complex=True)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None,
         axis: Any = None) -> Tensor:
    """Product over ``dim`` (all dims by default)."""
    tensor_arg("prod", input)
    if _amp.on and dtype is None:  # autocast (arraygrad.amp.state)
        input, = _amp.cast("prod", input)
    dims = _dims(input, dim, axis, "prod")
    backend = input._backend
    d = dtype if dtype is not None else input.dtype
    if not (d.is_floating_point or d.is_complex) and dtype is None:
        d = _dt.int64
    data = backend.xp.prod(input._data, axis=dims, keepdims=keepdim, dtype=backend.native_dtype(d))
    return _record_pair(PROD, data, input, dims, keepdim)


# -- max / min --------------------------------------------------------------------

def _extreme_all_grad(g: Tensor, n: RuleNode) -> Tensor:
    x = n.self
    # ties share the gradient evenly, as PyTorch's full max()/min() do
    mask = to_native(x == n.result, x._data.dtype)
    return mask * (g / sum(mask))


MAX_ALL = defop("MaxBackward1", jvp=VIA_VJP, saves=("self", "result"), vjp=(_extreme_all_grad,))
MIN_ALL = defop("MinBackward1", jvp=VIA_VJP, saves=("self", "result"), vjp=(_extreme_all_grad,))


def _extreme_dim_grad(grads: Any, n: RuleNode) -> Any:
    g = grads[0]  # the indices output has no gradient
    shape = n.self_sym_sizes
    if not shape:  # 0-dim input: the value itself
        return g
    dim = n.dim
    indices = n.indices
    if not n.keepdim:
        g = g.unsqueeze(dim)
        indices = indices.unsqueeze(dim)
    from arraygrad.creation import arange

    positions = arange(shape[dim], device=g.device).reshape(
        tuple(shape[dim] if i == dim else 1 for i in range(len(shape))))
    mask = to_native(positions == indices, g._data.dtype)
    return g * mask


MAX_DIM, MIN_DIM = (
    defop(name, jvp=VIA_VJP, saves=("indices",), params=("dim", "keepdim", "self_sym_sizes"), outputs=2,
          vjp=(_extreme_dim_grad,))
    for name in ("MaxBackward0", "MinBackward0"))


def _extreme(op: str, input: Tensor, dim: Any, keepdim: bool, other: Any, is_max: bool) -> Any:
    if isinstance(dim, Tensor) and other is None:
        dim, other = None, dim
    if other is not None:
        return ew.maximum(input, other) if is_max else ew.minimum(input, other)
    refuse_complex_forward(f"{op}_all" if dim is None else f"{op}_values", input)
    backend = input._backend
    xp = backend.xp
    _check_nonempty(op, input, dim, RuntimeError)
    if dim is None:
        data = (xp.max if is_max else xp.min)(input._data)
        return (MAX_ALL if is_max else MIN_ALL).record(data, backend, (input,))
    dims = normalize_dims(dim, input._data.ndim, op)
    int64 = backend.native_dtype(_dt.int64)
    if not dims:  # 0-dim input: the value itself, at index 0
        d = 0
        values = xp.asarray(input._data, copy=True)
        indices = xp.zeros((), dtype=int64)
    else:
        d = dims[0]
        values = (xp.max if is_max else xp.min)(input._data, axis=d, keepdims=keepdim)
        indices = xp.astype((xp.argmax if is_max else xp.argmin)(
            input._data, axis=d, keepdims=keepdim), int64)
    vals, idx = (MAX_DIM if is_max else MIN_DIM).record_many(
        (values, indices), backend, (input,), differentiable=(True, False), dim=d,
        keepdim=keepdim, self_sym_sizes=tuple(input._data.shape),
        indices=Tensor._wrap(indices, backend))
    return (return_types.max if is_max else return_types.min)(vals, idx)


def _check_nonempty(op: str, input: Tensor, dim: Any, unspecified: type[Exception]) -> None:
    """PyTorch's errors for a max/min-like reduction of an empty tensor: ``unspecified`` when
    no dim is given (RuntimeError for max/amax, IndexError for argmax), IndexError when a
    reduced dim has size 0 (NumPy's ValueError must not leak out)."""
    if input.numel() != 0:
        return
    if dim is None or dim == ():
        extra = ("" if op.startswith("arg")
                 else " Specify the reduction dim with the 'dim' argument.")
        raise unspecified(f"{op}(): Expected reduction dim to be specified for "
                          f"input.numel() == 0.{extra}")
    for d in normalize_dims(dim, input.ndim, op):
        if input.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def max(input: Tensor, dim: Any = None, keepdim: bool = False, *,
        other: Any = None) -> Tensor:  # noqa: A001
    """``max(x)``: the largest element; ``max(x, dim)``: ``(values, indices)``; ``max(x, y)``: elementwise."""
    tensor_arg("max", input)
    return _extreme("max", input, dim, keepdim, other, True)


def min(input: Tensor, dim: Any = None, keepdim: bool = False, *,
        other: Any = None) -> Tensor:  # noqa: A001
    """``min(x)``: the smallest element; ``min(x, dim)``: ``(values, indices)``; ``min(x, y)``: elementwise."""
    tensor_arg("min", input)
    return _extreme("min", input, dim, keepdim, other, False)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """Maximum over ``dim`` (ties share the gradient evenly)."""
    tensor_arg("amax", input)
    return _amaxmin(input, dim, keepdim, True)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """Minimum over ``dim`` (ties share the gradient evenly)."""
    tensor_arg("amin", input)
    return _amaxmin(input, dim, keepdim, False)


def _amax_grad(g: Tensor, n: RuleNode) -> Tensor:
    x = n.self
    shape, dims, keepdim = _shape(n), n.dim, n.keepdim
    out_full = _unreduce(n.result, shape, dims, keepdim)
    mask = to_native(x == out_full, x._data.dtype)
    count = sum(mask, dim=dims, keepdim=True)
    return _unreduce(g, shape, dims, keepdim) * mask / count


AMAX, AMIN = (defop(name, jvp=VIA_VJP, saves=("self", "result"), params=_DIM_PARAMS, vjp=(_amax_grad,))
              for name in ("AmaxBackward0", "AminBackward0"))


def _amaxmin(input: Tensor, dim: Any, keepdim: bool, is_max: Any) -> Tensor:
    refuse_complex_forward("max_values" if is_max else "min_values", input)
    _check_nonempty("amax" if is_max else "amin", input, dim, RuntimeError)
    dims = normalize_dims(dim, input._data.ndim, "amax" if is_max else "amin")
    xp = input._backend.xp
    data = (xp.max if is_max else xp.min)(input._data, axis=dims, keepdims=keepdim)
    return (AMAX if is_max else AMIN).record(data, input._backend, (input,), dim=dims,
                                             keepdim=keepdim)


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Index of the largest element (flattened when ``dim`` is None)."""
    check_kernel_dtype("argmax", input)
    tensor_arg("argmax", input)
    return _arg(input, dim, keepdim, True)


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Index of the smallest element (flattened when ``dim`` is None)."""
    check_kernel_dtype("argmin", input)
    tensor_arg("argmin", input)
    return _arg(input, dim, keepdim, False)


def _arg(input: Tensor, dim: Any, keepdim: bool, is_max: Any) -> Tensor:
    name = "argmax" if is_max else "argmin"
    refuse_complex_forward(name, input, error=RuntimeError,
                           message=f"{name}(): does not support complex input")
    _check_nonempty("argmax" if is_max else "argmin", input, dim, IndexError)
    xp = input._backend.xp
    fn = xp.argmax if is_max else xp.argmin
    if dim is None:
        data = fn(xp.reshape(input._data, (-1,)))
        if keepdim:
            data = xp.reshape(data, (1,) * input._data.ndim)
    else:
        dims = normalize_dims(dim, input._data.ndim, "argmax" if is_max else "argmin")
        if not dims:  # 0-dim input
            data = xp.zeros((), dtype=input._backend.native_dtype(_dt.int64))
        else:
            data = fn(input._data, axis=dims[0], keepdims=keepdim)
    return Tensor._wrap(xp.astype(data, input._backend.native_dtype(_dt.int64)), input._backend)


# -- var / std / logsumexp / norm -------------------------------------------------------

def _correction(unbiased: Any, correction: Any) -> Any:
    if correction is not None:
        return correction
    if unbiased is None:
        return 1
    return 1 if unbiased else 0


def _centered(n: RuleNode) -> Tensor:
    """The saved input minus its mean over the node's ``dim``."""
    x = n.self
    return x - mean(x, dim=n.dim, keepdim=True)


def _var_grad(g: Tensor, n: RuleNode) -> Tensor:
    shape, dims = _shape(n), n.dim
    dof = _count(shape, dims) - n.correction
    # no degrees of freedom: PyTorch's gradient is inf * 0 = NaN, not a ZeroDivisionError
    return (_unreduce(g, shape, dims, n.keepdim) * _centered(n)
            * (2.0 / dof if dof else math.inf))


def _std_grad(g: Tensor, n: RuleNode) -> Tensor:
    shape, dims = _shape(n), n.dim
    out = n.result
    # 0 where the std is 0 (a single element, or equal ones), as PyTorch; g / 0 would be NaN
    scale = _unreduce(ew.where(out == 0, 0.0, g / ew.where(out == 0, 1.0, out)), shape, dims,
                      n.keepdim)
    return scale * _centered(n) / (_count(shape, dims) - n.correction)


# complex inputs (a real result, the mean of |x - mean|^2): the same formulas, the centred
# values complex (the real gradient of |d|^2 is 2d)
_VAR_PARAMS = _DIM_PARAMS + ("correction",)
VAR = defop("VarBackward0", jvp=VIA_VJP, saves=("self",), params=_VAR_PARAMS, vjp=(_var_grad,),
            complex=True)
STD = defop("StdBackward0", jvp=VIA_VJP, saves=("self", "result"), params=_VAR_PARAMS,
            vjp=(_std_grad,), complex=True)


def _complex_var(xp: Any, x: Any, dims: Any, corr: Any, keepdim: bool) -> Any:
    """The variance of complex values: ``sum |x - mean|^2 / (n - correction)`` (real)."""
    centered = x - xp.mean(x, axis=dims, keepdims=True)
    squares = xp.real(centered) ** 2 + xp.imag(centered) ** 2
    count = math.prod(x.shape) if dims is None else math.prod(x.shape[d] for d in dims)
    dof = count - corr
    return xp.sum(squares, axis=dims, keepdims=keepdim) / (dof if dof > 0 else 0.0)


def _var_std(op: str, rule: Any, input: Tensor, dim: Any, unbiased: Any, keepdim: bool,
             correction: Any, axis: Any) -> Tensor:
    if isinstance(dim, bool):  # legacy positional form var(unbiased)
        dim, unbiased = None, dim
    dims = _dims(input, dim, axis, op)
    corr = _correction(unbiased, correction)
    xp = input._backend.xp
    if input._data.dtype in input._backend.complex_natives:
        data = _complex_var(xp, input._data, dims, corr, keepdim)
        if op == "std":
            data = xp.sqrt(data)
    else:
        data = getattr(xp, op)(to_float_data(input), axis=dims, correction=corr,
                               keepdims=keepdim)
    return rule.record(data, input._backend, (input,), dim=dims, keepdim=keepdim, correction=corr)


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None, axis: Any = None) -> Tensor:
    """Variance over ``dim`` with Bessel's ``correction`` (1 by default)."""
    check_kernel_dtype("var", input)
    tensor_arg("var", input)
    return _var_std("var", VAR, input, dim, unbiased, keepdim, correction, axis)


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None, axis: Any = None) -> Tensor:
    """Standard deviation over ``dim`` with Bessel's ``correction`` (1 by default)."""
    check_kernel_dtype("std", input)
    tensor_arg("std", input)
    return _var_std("std", STD, input, dim, unbiased, keepdim, correction, axis)


def _logsumexp_grad(g: Tensor, n: RuleNode) -> Tensor:
    shape, dims, keepdim = _shape(n), n.dim, n.keepdim
    return _unreduce(g, shape, dims, keepdim) * conj_of(ew.exp(
        n.self - _unreduce(n.result, shape, dims, keepdim)))


LOGSUMEXP = defop("LogsumexpBackward0", jvp=VIA_VJP, saves=("self", "result"), params=_DIM_PARAMS,
                  vjp=(_logsumexp_grad,), complex=True)


def logsumexp(input: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, computed without overflow."""
    tensor_arg("logsumexp", input)
    dims = normalize_dims(dim, input._data.ndim, "logsumexp")
    xp = input._backend.xp
    x = to_float_data(input)
    if math.prod(x.shape):
        # the shift: the largest (real part), which complex values have no order for
        complex_x = x.dtype in input._backend.complex_natives
        m = xp.max(xp.real(x) if complex_x else x, axis=dims, keepdims=True)
        m = xp.where(xp.isfinite(m), m, xp.zeros_like(m))
        if complex_x:
            m = xp.astype(m, x.dtype)
    else:  # an empty slice has no max; its sum of exp is 0, so the result is -inf
        m = xp.zeros(tuple(1 if dims is None or i in dims else n for i, n in enumerate(x.shape)),
                     dtype=x.dtype)
    data = xp.log(xp.sum(xp.exp(x - m), axis=dims, keepdims=True)) + m
    if not keepdim:
        data = xp.reshape(data, tuple(n for i, n in enumerate(x.shape)
                                      if i not in (dims or range(x.ndim))))
    return LOGSUMEXP.record(data, input._backend, (input,), dim=dims, keepdim=keepdim)


def _norm_grad(g: Tensor, n: RuleNode) -> Tensor:
    x, p = n.self, n.p
    shape, dims, keepdim = _shape(n), n.dim, n.keepdim
    g_full = _unreduce(g, shape, dims, keepdim)
    out_full = _unreduce(n.result, shape, dims, keepdim)
    if p == 2:
        return g_full * x / ew.where(out_full == 0, 1.0, out_full)
    if p == 1:  # (sgn: the complex sign z / |z|, the real one's sign)
        return g_full * ew.sgn(x)
    if math.isinf(p):
        mask = to_native(ew.abs(x) == out_full, out_full._data.dtype)
        count = sum(mask, dim=dims, keepdim=True)
        return g_full * ew.sgn(x) * mask / count
    if p == 0:
        return g_full * 0
    safe = ew.where(out_full == 0, 1.0, out_full)
    return g_full * x * ew.abs(x) ** (p - 2) / safe ** (p - 1)


# complex inputs: the norm of the magnitudes; the same formulas (x / |x| is the real gradient
# of |x|)
NORM = defop("NormBackward1", jvp=VIA_VJP, saves=("self", "result"), params=("p",) + _DIM_PARAMS,
             vjp=(_norm_grad,), complex=True)


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> Tensor:
    """Vector p-norm over ``dim`` (``"fro"``/2, 1, inf, -inf, 0 or any float)."""
    if p == "fro" or p is None:
        p = 2
    if isinstance(p, str):
        raise RuntimeError(f"norm: unsupported norm type {p!r}")
    p = float(p)
    dims = normalize_dims(dim, input._data.ndim, "norm")
    if dtype is not None:
        input = to_dtype(input, dtype)
    check_kernel_dtype("norm", input)
    xp = input._backend.xp
    x = to_float_data(input)
    ax = dims
    a = xp.abs(x)
    if x.dtype in input._backend.complex_natives:
        x = a  # the norm of the magnitudes (real)
    if p == 2:
        data = xp.sqrt(xp.sum(x * x, axis=ax, keepdims=keepdim))
    elif p == 1:
        data = xp.sum(a, axis=ax, keepdims=keepdim)
    elif p == math.inf:
        data = xp.max(a, axis=ax, keepdims=keepdim)
    elif p == -math.inf:
        data = xp.min(a, axis=ax, keepdims=keepdim)
    elif p == 0:
        data = xp.sum(xp.astype(a != 0, x.dtype), axis=ax, keepdims=keepdim)
    else:
        data = in_opmath(input._backend,
                         lambda v: xp.sum(v ** p, axis=ax, keepdims=keepdim) ** (1.0 / p), a)
    return NORM.record(data, input._backend, (input,), p=p, dim=dims, keepdim=keepdim)


# -- cumsum / all / any ------------------------------------------------------------------

# the reversed running sum; the recorder casts it back to the input's dtype
CUMSUM = defop("CumsumBackward0", jvp=lambda t, n: cumsum(t, n.dim), params=("dim",),
               vjp=(lambda g, n: cumsum(g.flip(n.dim), n.dim).flip(n.dim),), complex=True)


def cumsum(input: Tensor, dim: Any, *, dtype: Any = None) -> Tensor:
    """Running sum along ``dim``; integer sums are int64."""
    tensor_arg("cumsum", input)
    dims = normalize_dims(dim, input._data.ndim, "cumsum")
    d = dims[0] if dims else 0
    backend = input._backend
    out_dtype = dtype or (input.dtype if input.dtype.is_floating_point or input.dtype.is_complex
                          else _dt.int64)
    x = input._data
    if x.ndim == 0:
        data = backend.xp.astype(x, backend.native_dtype(out_dtype))
    else:
        data = backend.xp.cumulative_sum(x, axis=d, dtype=backend.native_dtype(out_dtype))
    return CUMSUM.record(data, backend, (input,), dim=d)


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Whether every element (along ``dim``) is true."""
    dims = normalize_dims(dim, input._data.ndim, "all")
    return Tensor._wrap(input._backend.xp.all(input._data, axis=dims, keepdims=keepdim),
                        input._backend)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Whether any element (along ``dim``) is true."""
    dims = normalize_dims(dim, input._data.ndim, "any")
    return Tensor._wrap(input._backend.xp.any(input._data, axis=dims, keepdims=keepdim),
                        input._backend)
