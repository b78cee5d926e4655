"""Fractional max pooling (Graham, "Fractional Max-Pooling"): windows of a fixed size at
pseudo-random, increasing offsets that reach ``output_size`` windows per axis.

The offsets are PyTorch's: along an axis of ``n_in`` elements pooled into ``n_out`` windows
of ``k``, with the plane's sample ``u`` in [0, 1) and ``alpha = (n_in - k) / (n_out - 1)``
(in the input's dtype, as PyTorch's kernel computes it), window ``i < n_out - 1`` starts at
``int((i + u) * alpha) - int(u * alpha)`` and the last at ``n_in - k``. The samples are
``_random_samples`` (``(N, C, n)``: for 2-D, index 0 is the width's and 1 the height's; for
3-D, 0 time, 1 height, 2 width), drawn uniformly when not given. Each window's elements are
gathered (so the gradient is the gather's) and reduced by ``max``.
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.nn._functional.conv import _pair
from arraygrad.tensor import Tensor

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]

_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _starts(samples: Any, xp: Any, dtype: Any, n_in: int, n_out: int, k: int) -> Any:
    """``(N, C, n_out)`` window starts along one axis from the ``(N, C)`` samples."""
    shape = (*samples.shape, n_out)
    if n_out <= 1:
        return xp.full(shape, n_in - k, dtype=xp.int64)
    alpha = xp.asarray(n_in - k, dtype=dtype) / xp.asarray(n_out - 1, dtype=dtype)
    i = xp.reshape(xp.arange(n_out - 1, dtype=dtype), (1, 1, n_out - 1))
    u = samples[..., None]
    inner = (xp.astype((i + u) * alpha, xp.int64)
             - xp.astype(u * alpha, xp.int64))
    last = xp.full((*samples.shape, 1), n_in - k, dtype=xp.int64)
    return xp.concat([inner, last], axis=-1)


def _pool(input: Tensor, kernel_size: Any, output_size: Any, output_ratio: Any,
          samples: Tensor | None, n: int) -> tuple[Tensor, Tensor]:
    op = f"fractional_max_pool{n}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if output_size is None:
        if len(output_ratio) > n:
            raise ValueError(f"{op} requires output_ratio to either be a single Int or tuple "
                             "of Ints.")
        ratio = tuple(output_ratio) * n if len(output_ratio) == 1 else tuple(output_ratio)
        output_size = [int(input.size(-n + d) * ratio[d]) for d in range(n)]
    kernel = _pair(kernel_size, "kernel_size", n)
    out = _pair(output_size, "output_size", n)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{op}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    batched = input.ndim == n + 2
    x = input if batched else input.unsqueeze(0)
    batch, planes = x.shape[0], x.shape[1]
    sizes = tuple(x.shape[2:])
    for d in range(n):
        if out[d] + kernel[d] - 1 > sizes[d]:
            raise RuntimeError(f"{op}{'_out' if n == 3 else ''}(): pool {_AXES[n][d]} "
                               f"{kernel[d]} too large relative to input {_AXES[n][d]} "
                               f"{sizes[d]}")
    if samples is None:
        from arraygrad.creation import rand

        samples = rand(batch, planes, n, dtype=input.dtype, device=input.device)
    if tuple(samples.shape[:2]) != (batch, planes) or samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to be of shape ({batch}, {planes}, {n}); "
                           f"got {list(samples.shape)}.")
    if samples.shape[2] != n:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {n}; got "
                           f"{samples.shape[2]}.")
    backend = x._backend
    xp = backend.xp
    u = samples.detach()._data
    dtype = u.dtype
    # PyTorch's sample order: 2-D (width, height), 3-D (time, height, width)
    order = (1, 0) if n == 2 else (0, 1, 2)
    starts = [_starts(u[..., order[d]], xp, dtype, sizes[d], out[d], kernel[d])
              for d in range(n)]
    # flat index (into the plane) of every element of every window: (N, C, *out, *kernel)
    flat = xp.zeros((batch, planes) + (1,) * (2 * n), dtype=xp.int64)
    stride = 1
    for d in reversed(range(n)):
        start = xp.reshape(starts[d], (batch, planes) + tuple(out[d] if e == d else 1
                                                              for e in range(n)) + (1,) * n)
        offset = xp.reshape(xp.arange(kernel[d], dtype=xp.int64),
                            (1, 1) + (1,) * n + tuple(kernel[d] if e == d else 1
                                                      for e in range(n)))
        flat = flat + (start + offset) * stride
        stride *= sizes[d]
    window = 1
    for k in kernel:
        window *= k
    total = 1
    for o in out:
        total *= o
    index = Tensor._wrap(xp.reshape(xp.broadcast_to(flat, (batch, planes, *out, *kernel)),
                                    (batch, planes, total * window)), backend)
    values = x.reshape(batch, planes, -1).gather(2, index).reshape(batch, planes, total, window)
    result, position = values.max(3)
    indices = index.reshape(batch, planes, total, window).gather(3, position.unsqueeze(3))
    result = result.reshape(batch, planes, *out)
    indices = indices.reshape(batch, planes, *out)
    if not batched:
        result, indices = result.squeeze(0), indices.squeeze(0)
    return result, indices.to(_dt.int64)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None
                                       ) -> tuple[Tensor, Tensor]:
    """``(output, indices)`` of 2-D fractional max pooling of ``(N, C, H, W)`` or
    ``(C, H, W)``; ``indices`` are flat within each ``H * W`` plane (for ``max_unpool2d``)."""
    return _pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size: Any, output_size: Any = None,
                                       output_ratio: Any = None, return_indices: bool = False,
                                       _random_samples: Tensor | None = None
                                       ) -> tuple[Tensor, Tensor]:
    """``(output, indices)`` of 3-D fractional max pooling of ``(N, C, T, H, W)`` or
    ``(C, T, H, W)``; ``indices`` are flat within each ``T * H * W`` volume."""
    return _pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool2d(input: Tensor, kernel_size: Any, output_size: Any = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    """2-D fractional max pooling: ``kernel_size`` windows at random increasing offsets giving
    ``output_size`` (or ``output_ratio`` of the input size) outputs; ``(output, indices)``
    with ``return_indices``."""
    result = _pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return result if return_indices else result[0]


def fractional_max_pool3d(input: Tensor, kernel_size: Any, output_size: Any = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Tensor | None = None) -> Any:
    """3-D fractional max pooling (see ``fractional_max_pool2d``)."""
    result = _pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return result if return_indices else result[0]
