"""Shape rules of the Array API ``fft`` extension: a transform keeps its input's shape but for
the transformed axes, which take the requested sizes (``n``/``s``); a real-to-complex
transform keeps ``n // 2 + 1`` entries of its last axis, and a complex-to-real one makes
``2 * (m - 1)`` of them unless told the size. The dtypes come from probes on 1-element
stand-ins without the sizes (a probe allocates nothing of the data's size)."""

from __future__ import annotations

from typing import Any

from arraygrad_meta.array import MetaArray
from arraygrad_meta.table import probe, shape_rule, shaped

__all__: list[str] = []


def _axes(x: MetaArray, s: Any, axes: Any) -> list[int]:
    """The transformed axes, non-negative (NumPy's defaults: the last ``len(s)``, or all)."""
    if axes is None:
        axes = range(x.ndim - len(s), x.ndim) if s is not None else range(x.ndim)
    for a in axes:
        if not -x.ndim <= a < x.ndim:
            raise ValueError(f"axis {a} is out of bounds for array of dimension {x.ndim}")
    return [a % x.ndim for a in axes]


def _sized(x: MetaArray, axes: list[int], sizes: list[int]) -> list[int]:
    shape = list(x.shape)
    for a, n in zip(axes, sizes):
        if n < 1:
            raise ValueError(f"Invalid number of FFT data points ({n}) specified.")
        shape[a] = n
    return shape


def _nd(fn: Any, x: MetaArray, s: Any, axes: Any, norm: str, last: Any) -> MetaArray:
    """An n-dimensional transform; ``last(n)`` is the last axis's output size from its input
    size ``n`` (the full transforms keep it)."""
    ax = _axes(x, s, axes)
    sizes = list(s) if s is not None else [x.shape[a] for a in ax]
    shape = _sized(x, ax, sizes)
    if ax:
        shape[ax[-1]] = last(sizes[-1])
    return shaped(probe(fn, x, axes=ax, norm=norm), tuple(shape))


@shape_rule("fft.fftn", "fft.ifftn")
def complex_nd(fn: Any, x: MetaArray, /, *, s: Any = None, axes: Any = None,
               norm: str = "backward") -> MetaArray:
    """Each transformed axis becomes its requested size."""
    return _nd(fn, x, s, axes, norm, lambda n: n)


@shape_rule("fft.rfftn")
def real_to_complex_nd(fn: Any, x: MetaArray, /, *, s: Any = None, axes: Any = None,
                       norm: str = "backward") -> MetaArray:
    """The last transformed axis keeps its non-negative frequencies."""
    return _nd(fn, x, s, axes, norm, lambda n: n // 2 + 1)


@shape_rule("fft.irfftn")
def complex_to_real_nd(fn: Any, x: MetaArray, /, *, s: Any = None, axes: Any = None,
                       norm: str = "backward") -> MetaArray:
    """The last transformed axis is ``s[-1]``, else twice the stored frequencies less two."""
    ax = _axes(x, s, axes)
    if s is None:
        sizes = [x.shape[a] for a in ax]
        if ax:
            sizes[-1] = 2 * (sizes[-1] - 1)
    else:
        sizes = list(s)
    shape = _sized(x, ax, sizes)
    # one output point per axis: the stand-in's default (2 * (1 - 1) = 0) is refused
    return shaped(probe(fn, x, s=[1] * len(ax), axes=ax, norm=norm), tuple(shape))


def _one_axis(n: Any, axis: int) -> tuple[Any, tuple[int]]:
    return (None if n is None else (n,)), (axis,)


@shape_rule("fft.fft", "fft.ifft")
def complex_1d(fn: Any, x: MetaArray, /, *, n: Any = None, axis: int = -1,
               norm: str = "backward") -> MetaArray:
    """The axis becomes ``n`` long."""
    s, axes = _one_axis(n, axis)
    return _nd(fn, x, s, axes, norm, lambda m: m)


@shape_rule("fft.rfft", "fft.ihfft")
def real_to_complex_1d(fn: Any, x: MetaArray, /, *, n: Any = None, axis: int = -1,
                       norm: str = "backward") -> MetaArray:
    """The axis keeps ``n // 2 + 1`` frequencies."""
    s, axes = _one_axis(n, axis)
    ax = _axes(x, s, axes)
    size = n if n is not None else x.shape[ax[0]]
    shape = _sized(x, ax, [size // 2 + 1])
    return shaped(probe(fn, x, axis=ax[0], norm=norm), tuple(shape))


@shape_rule("fft.irfft", "fft.hfft")
def complex_to_real_1d(fn: Any, x: MetaArray, /, *, n: Any = None, axis: int = -1,
                       norm: str = "backward") -> MetaArray:
    """The axis becomes ``n``, else ``2 * (m - 1)`` long."""
    s, axes = _one_axis(n, axis)
    ax = _axes(x, s, axes)
    size = n if n is not None else 2 * (x.shape[ax[0]] - 1)
    shape = _sized(x, ax, [size])
    return shaped(probe(fn, x, n=1, axis=ax[0], norm=norm), tuple(shape))


@shape_rule("fft.fftshift", "fft.ifftshift")
def shift(fn: Any, x: MetaArray, /, *, axes: Any = None) -> MetaArray:
    """A roll: the input's shape."""
    return shaped(probe(fn, x, axes=axes), tuple(x.shape))
