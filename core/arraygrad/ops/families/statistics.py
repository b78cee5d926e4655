"""Statistics PyTorch has by name: ``cov`` and ``corrcoef`` (composites, differentiable, in
PyTorch's steps), ``histogram`` and ``histogramdd`` (counts, not differentiable), and ``isin``.

A histogram element falls in bin ``i`` when ``edges[i] <= x < edges[i+1]``, the last bin
including its right edge; elements outside the range are left out. Evenly spaced edges are
PyTorch's ``linspace`` values in the input's dtype, so an element on an edge lands in the
same bin as in PyTorch.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable

import arraygrad as ag
from arraygrad import dtypes as _dt
from arraygrad.ops.arguments import tensor_arg as _tensor
from arraygrad.ops.families._select import named
from arraygrad.ops.families.sequences import symmetric_steps
from arraygrad.ops.value_checks import any_true
from arraygrad.tensor import Tensor, wrap

__all__ = ["cov", "corrcoef", "histogram", "histogramdd", "isin", "FUNCTIONS", "METHODS"]


def _check_weights(kind: str, w: Tensor, observations: int, floating: bool) -> None:
    if w.ndim > 1:
        raise RuntimeError(f"cov(): expected {kind} to have one or fewer dimensions but got "
                           f"{kind} with {w.ndim} dimensions")
    if floating != w.dtype.is_floating_point or w.dtype is _dt.bool:
        want = "floating point" if floating else "integral"
        raise RuntimeError(f"cov(): expected {kind} to have {want} dtype but got {kind} with "
                           f"{_dt.scalar_type_name(w.dtype)} dtype")
    if w.numel() != observations:
        raise RuntimeError(f"cov(): expected {kind} to have the same numel as there are "
                           f"observations in the input but got {w.numel()} != {observations}")
    if any_true(w._backend, w._data < 0):
        raise RuntimeError(f"cov(): {kind} cannot be negative")


def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """The covariance matrix of the variables in ``input``'s rows (observations in columns;
    a 1-D input is one variable), with frequency and importance weights, as ``torch.cov``."""
    x = _tensor("cov", input)
    if x.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {x.ndim} dimensions")
    if x.dtype is _dt.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = x.reshape(1, -1) if x.ndim < 2 else x
    observations = x.shape[1]
    w = None
    if fweights is not None:
        _check_weights("fweights", fweights, observations, False)
        w = fweights
    if aweights is not None:
        _check_weights("aweights", aweights, observations, True)
        w = aweights if w is None else w * aweights
    w_sum = w.sum() if w is not None else ag.tensor(observations, device=x.device)
    if w is not None and any_true(w_sum._backend, w_sum._data == 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    avg = (x * w if w is not None else x).sum(1) / w_sum
    if w is not None and aweights is not None and correction != 0:
        norm_factor = w_sum - correction * (w * aweights).sum() / w_sum
    else:
        norm_factor = w_sum - correction
    if any_true(norm_factor._backend, norm_factor._data <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less "
                      "than the number of observations.", UserWarning, stacklevel=2)
        norm_factor = norm_factor * 0
    centered = x - avg.unsqueeze(1)
    c = ag.mm(centered, (centered * w if w is not None else centered).t())
    return ag.div(c, norm_factor).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    """The Pearson correlation coefficients of the variables in ``input``'s rows (``cov``
    normalised by the standard deviations, clipped to [-1, 1])."""
    c = cov(_tensor("corrcoef", input))
    if c.ndim == 0:
        return c / c
    stddev = c.diagonal().sqrt()
    c = c / stddev.reshape(-1, 1)
    c = c / stddev.reshape(1, -1)
    return c.clip(-1, 1)


def _float_input(input: Any) -> Tensor:
    x = _tensor("histogramdd", input)
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"\"histogramdd\" not implemented for "
                                  f"'{_dt.scalar_type_name(x.dtype)}'")
    return x


def _edges(x: Tensor, columns: Any, bins: Any, range: Any) -> list[Any]:
    """Each dimension's bin edges (arrays in ``x``'s dtype), as PyTorch chooses them."""
    backend = x._backend
    xp = backend.xp
    dims = columns.shape[1]
    if isinstance(bins, Tensor) or (isinstance(bins, (list, tuple)) and bins
                                    and isinstance(bins[0], Tensor)):
        given = [bins] if isinstance(bins, Tensor) else list(bins)
        if len(given) != dims:
            raise RuntimeError(f"torch.histogramdd: expected {dims} sequences of bin edges for "
                               f"each of the {dims} input dimensions, but got {len(given)}")
        return [xp.astype(e._data, columns.dtype) for e in given]
    counts = [int(bins)] * dims if isinstance(bins, int) else [int(b) for b in bins]
    if len(counts) != dims:
        raise RuntimeError(f"torch.histogramdd: expected {dims} bin counts for each of the "
                           f"{dims} input dimensions, but got {len(counts)}")
    for n in counts:
        if n <= 0:
            raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {n}")
    if range is not None and len(range) != 2 * dims:
        raise RuntimeError(f"torch.histogramdd: for a {dims}-dimensional histogram, range should "
                           f"have {2 * dims} elements, but got {len(range)}")
    out = []
    for d, n in enumerate(counts):
        if range is not None:
            lo, hi = float(range[2 * d]), float(range[2 * d + 1])
        elif columns.shape[0]:
            lo, hi = float(xp.min(columns[:, d])), float(xp.max(columns[:, d]))
        else:
            lo, hi = 0.0, 1.0
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} "
                               f"max {hi:g} for dimension {d}")
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension {d}'s range [{lo:g}, {hi:g}] is "
                               f"not finite")
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        out.append(symmetric_steps(xp, lo, hi, n + 1, columns.dtype))
    return out


def _histogramdd(x: Tensor, columns: Any, bins: Any, range: Any, weight: Tensor | None,
                 density: bool) -> tuple[Tensor, list[Tensor]]:
    """``(hist, edges)`` for the points in the rows of ``columns`` (``x``'s backend)."""
    backend = x._backend
    xp = backend.xp
    edges = _edges(x, columns, bins, range)
    sizes = [e.shape[0] - 1 for e in edges]
    valid = xp.ones((columns.shape[0],), dtype=xp.bool)
    flat = xp.zeros((columns.shape[0],), dtype=xp.int64)
    for d, e in enumerate(edges):
        col = columns[:, d]
        pos = xp.astype(xp.searchsorted(e, col, side="right"), xp.int64) - 1
        pos = xp.clip(pos, 0, max(sizes[d] - 1, 0))  # the last bin holds its right edge
        valid = valid & (col >= e[0]) & (col <= e[-1])
        flat = flat * sizes[d] + pos
    if weight is not None:
        w = xp.reshape(xp.astype(weight._data, columns.dtype), (-1,))
    else:
        w = xp.ones((columns.shape[0],), dtype=columns.dtype)
    w = xp.where(valid, w, xp.zeros_like(w))
    hist = backend.scatter_add(xp.zeros((math.prod(sizes),), dtype=columns.dtype),
                               xp.where(valid, flat, xp.zeros_like(flat)), w)
    hist = xp.reshape(hist, tuple(sizes))
    if density:
        volume = xp.ones(tuple(sizes), dtype=columns.dtype)
        for d, e in enumerate(edges):
            shape = [1] * len(sizes)
            shape[d] = sizes[d]
            volume = volume * xp.reshape(e[1:] - e[:-1], tuple(shape))
        hist = hist / (xp.sum(hist) * volume)
    return wrap(hist, backend), [wrap(e, backend) for e in edges]


def _check_weight(weight: Any, shape: tuple[int, ...]) -> None:
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided it should have the "
                           f"same shape as the input tensor excluding its innermost dimension, "
                           f"but got input with shape {list(shape)} and weight with shape "
                           f"{list(weight.shape)}")


def histogramdd(input: Tensor, bins: Any = 10, *, range: Any = None,
                weight: Tensor | None = None, density: bool = False) -> Any:
    """The ``D``-dimensional histogram of the points in ``input``'s last dimension:
    ``(hist, bin_edges)``, ``bins`` a count, a count per dimension, or edges per dimension."""
    x = _float_input(input)
    dims = x.shape[-1] if x.ndim else 1
    columns = x._backend.xp.reshape(x._data, (-1, dims))
    _check_weight(weight, tuple(x.shape[:-1]))
    hist, edges = _histogramdd(x, columns, bins, range, weight, density)
    return named("histogramdd", ("hist", "bin_edges"))(hist, tuple(edges))


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None, weight: Tensor | None = None,
              density: bool = False, out: Any = None) -> Any:
    """The histogram of ``input``'s elements: ``(hist, bin_edges)``, ``bins`` a count (evenly
    spaced over ``range``, default the data's) or a 1-D tensor of edges."""
    x = _float_input(input)
    if weight is not None and tuple(weight.shape) != tuple(x.shape):
        raise RuntimeError(f"histogram: weight tensor of shape {list(weight.shape)} does not "
                           f"match the input's shape {list(x.shape)}")
    columns = x._backend.xp.reshape(x._data, (-1, 1))
    hist, edges = _histogramdd(x, columns, bins, range, weight, density)
    result = named("histogram", ("hist", "bin_edges"))(hist, edges[0])
    if out is not None:
        from arraygrad.ops.out_arg import write_out

        return write_out("histogram", result, out)
    return result


def isin(elements: Any = None, test_elements: Any = None, *, assume_unique: bool = False,
         invert: bool = False, element: Any = None, test_element: Any = None) -> Tensor:
    """Whether each of ``elements`` is in ``test_elements`` (either may be a number; PyTorch's
    ``element=``/``test_element=`` names for those): a bool tensor of ``elements``' shape."""
    elements = element if elements is None else elements
    test_elements = test_element if test_elements is None else test_elements
    if elements is None or test_elements is None:
        raise TypeError("isin() missing required argument 'elements' or 'test_elements'")
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): expected at least one Tensor argument")
    like = elements if isinstance(elements, Tensor) else test_elements
    d = _dt.result_type(elements, test_elements)
    backend = like._backend
    xp = backend.xp
    native = backend.native_dtype(d)

    def array(value: Any) -> Any:
        if isinstance(value, Tensor):
            return xp.astype(value._data, native)
        return xp.asarray(value, dtype=native)

    a, b = array(elements), xp.reshape(array(test_elements), (-1,))
    if b.shape[0] == 0:
        found = xp.zeros(a.shape, dtype=xp.bool)
    else:
        ordered = xp.sort(b)
        at = xp.clip(xp.searchsorted(ordered, xp.reshape(a, (-1,))), 0, ordered.shape[0] - 1)
        found = xp.reshape(xp.take(ordered, at, axis=0) == xp.reshape(a, (-1,)), a.shape)
    return wrap(xp.logical_not(found) if invert else found, backend)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "cov": cov, "corrcoef": corrcoef, "histogram": histogram, "histogramdd": histogramdd,
    "isin": isin,
}
METHODS: dict[str, Callable[..., Any]] = {"cov": cov, "corrcoef": corrcoef,
                                          "histogram": histogram}
