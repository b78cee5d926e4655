"""More reductions, built from the core ones (whose rules carry the gradients):
``var_mean``/``std_mean``, ``nansum``/``nanmean``, ``aminmax``, ``count_nonzero``.

``nansum`` reads NaN as zero (gradient zero there, as PyTorch's); ``nanmean`` divides by
the number of non-NaN elements; ``aminmax`` is ``(amin, amax)`` (ties share the gradient
evenly).
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops import elementwise as ew
from arraygrad.ops import reduction as red
from arraygrad.ops.arguments import normalize_dims
from arraygrad.ops.complex_checks import refuse_complex_forward
from arraygrad.ops.families._select import named
from arraygrad.tensor import Tensor

__all__ = ["var_mean", "std_mean", "nansum", "nanmean", "aminmax", "count_nonzero"]


def _tensor(input: Any, op: str) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(input).__name__}")


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(var(input, ...), mean(input, ...))`` over the same ``dim``."""
    _tensor(input, "var_mean")
    if isinstance(dim, bool) and unbiased is None:  # var_mean(x, False): the unbiased flag
        dim, unbiased = None, dim
    return (red.var(input, dim, unbiased, keepdim, correction=correction),
            red.mean(input, dim, keepdim))


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:
    """``(std(input, ...), mean(input, ...))`` over the same ``dim``."""
    _tensor(input, "std_mean")
    if isinstance(dim, bool) and unbiased is None:
        dim, unbiased = None, dim
    return (red.std(input, dim, unbiased, keepdim, correction=correction),
            red.mean(input, dim, keepdim))


def _zero_nan(input: Tensor) -> Tensor:
    if not input.dtype.is_floating_point:
        return input
    return ew.where(ew.isnan(input), 0.0, input)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *,
           dtype: Any = None) -> Tensor:
    """``sum`` reading NaN as zero."""
    _tensor(input, "nansum")
    refuse_complex_forward("nansum", input, error=RuntimeError,
                           message="nansum on CPU does not support complex inputs")
    return red.sum(_zero_nan(input), dim, keepdim, dtype=dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *,
            dtype: Any = None) -> Tensor:
    """``mean`` of the non-NaN elements (NaN where there are none)."""
    _tensor(input, "nanmean")
    refuse_complex_forward("nanmean", input, error=RuntimeError,
                           message="nansum on CPU does not support complex inputs")
    if dtype is None and not input.dtype.is_floating_point:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {input.dtype.name}")
    if dtype is not None:
        input = input.to(dtype)
    kept = ew.logical_not(ew.isnan(input)).to(input.dtype)
    count = red.sum(kept, dim, keepdim)
    return nansum(input, dim, keepdim) / count


def aminmax(input: Tensor, *, dim: Any = None, keepdim: bool = False) -> Any:
    """``(min, max)`` over ``dim`` (all elements when None), as
    ``return_types.aminmax``."""
    _tensor(input, "aminmax")
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        dims: Any = ()
    else:
        if isinstance(dim, bool) or not isinstance(dim, int):
            raise TypeError(f"aminmax(): argument 'dim' must be int, not {type(dim).__name__}")
        dims = normalize_dims(dim, input._data.ndim, "aminmax")
        if input._data.ndim and input._data.shape[dims[0]] == 0:
            raise IndexError("aminmax(): Expected reduction dim "
                             f"{dims[0]} to have non-zero size.")
        dims = dim
    result = named("aminmax", ("min", "max"))
    return result(red.amin(input, dims, keepdim), red.amax(input, dims, keepdim))


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """The number of non-zero elements over ``dim`` (all when None), int64."""
    _tensor(input, "count_nonzero")
    dims = normalize_dims(dim, input._data.ndim, "count_nonzero")
    backend = input._backend
    xp = backend.xp
    data = xp.sum(xp.astype(input._data != 0, backend.native_dtype(_dt.int64)), axis=dims)
    return Tensor._wrap(data, backend)


FUNCTIONS = {"var_mean": var_mean, "std_mean": std_mean, "nansum": nansum, "nanmean": nanmean,
             "aminmax": aminmax, "count_nonzero": count_nonzero}
METHODS = {"nansum": nansum, "nanmean": nanmean, "aminmax": aminmax,
           "count_nonzero": count_nonzero}
