"""Resampling: ``interpolate`` (every mode), ``grid_sample``, ``affine_grid``, pixel and
channel shuffles, composed from differentiable Tensor ops.

* ``interpolate`` is separable in every mode: along each spatial axis the output is a fixed
  sparse linear map of the input (a few taps per output, built on the host with PyTorch's
  index and weight formulas, and cached). One rule, ``RESAMPLE``, applies such a map along an
  axis (weighted ``take``s; a dense matmul for wide maps); its backward is the same rule with
  the transposed taps, so gradients of every order are exact adjoints.
* ``grid_sample`` computes the source coordinates from ``grid`` with Tensor ops (so the
  gradient reaches ``grid``), takes the integer corners as constants and reads the input
  with ``gather`` (whose backward is a scatter-add), weighting each corner by a
  differentiable function of the fractional part.
"""

from __future__ import annotations

import functools
import math
import struct
import warnings
from typing import TYPE_CHECKING, Any, Callable, Sequence

from arraygrad import dtypes as _dt
from arraygrad.ops import elementwise as ew
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.ops.indexed_operands import indexed_by

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.tensor import Tensor

__all__ = [
    "interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "grid_sample",
    "affine_grid", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "native_channel_shuffle",
]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
_AXIS_NAMES = ("D", "H", "W")


# -- interpolate: argument handling as torch.nn.functional.interpolate ---------------------------

def _is_integer(value: Any) -> bool:
    from arraygrad.tensor import Tensor

    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, Tensor):
        return not value.is_floating_point()
    return type(value).__name__.startswith(("int", "uint"))  # NumPy integer scalars


def _spatial_list(value: Any, dim: int) -> list[Any]:
    """A size/scale argument as a Python list (a Tensor argument becomes its values)."""
    from arraygrad.tensor import Tensor

    if isinstance(value, Tensor):
        value = value.tolist()
    return list(value) if isinstance(value, (list, tuple)) else [value] * dim


def _output_size(input: Tensor, size: Any, scale_factor: Any, mode: str,
                 recompute_scale_factor: bool | None) -> tuple[list[Any], list[Any]]:
    """``(output sizes, scales)``: PyTorch's validation and its rule for each (scales may be
    ``None`` per axis, meaning "from the sizes")."""
    dim = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales: list[Any] = [None] * max(dim, 0)
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {spatial} and output size of {size}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                    "output size in (o1, o2, ...,oK) format.")
            if not all(_is_integer(v) for v in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(v) for v in size]}")
        out = [int(v) for v in _spatial_list(size, dim)]
        if recompute_scale_factor:
            raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
        return out, scales
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != dim:
        raise ValueError(
            "Input and scale_factor must have the same number of spatial dimensions, but "
            f"got input with spatial dimensions of {spatial} and "
            f"scale_factor of shape {scale_factor}. "
            "Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
            "scale_factor in (s1, s2, ...,sK) format.")
    factors = [float(s) for s in _spatial_list(scale_factor, dim)]
    out = [int(n * s) for n, s in zip(spatial, factors)]  # truncation, as PyTorch's int64 cast
    if recompute_scale_factor or mode == "area":  # area always works from the sizes
        return out, scales
    return out, factors


def _check_sizes(input: Tensor, out: Sequence[int]) -> None:
    spatial = list(input.shape[2:])
    if min(spatial) <= 0 or min(out) <= 0:
        names = _AXIS_NAMES[-len(out):]
        ins = ", ".join(f"{a}: {n}" for a, n in zip(names, spatial))
        outs = ", ".join(f"{a}: {n}" for a, n in zip(names, out))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({ins}) output ({outs})")


_KIND = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5, "lanczos": 4}


def _check_mode(input: Tensor, mode: str, align_corners: bool, antialias: bool) -> None:
    """PyTorch's dispatch errors: the mode/rank combinations it has no kernel for."""
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode in ("nearest", "nearest-exact", "area") and input.ndim in (3, 4, 5):
        return
    if _KIND.get(mode) == input.ndim:
        if mode == "lanczos":
            if align_corners:
                raise ValueError("Lanczos mode does not support align_corners=True")
            if not antialias:
                raise ValueError("Lanczos mode requires antialias=True")
        return
    if mode in ("linear", "bilinear", "trilinear") and input.ndim in (3, 4, 5):
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_KIND[mode]}D input")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                              f"{input.ndim}D) for the modes: {_MODES} (got {mode})")


def interpolate(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                align_corners: bool | None = None, recompute_scale_factor: bool | None = None,
                antialias: bool = False) -> Tensor:
    """Resize the spatial dimensions of ``(N, C, *spatial)`` input, as PyTorch's ``interpolate``.

    ``mode``: ``'nearest'`` (PyTorch's legacy floor indexing), ``'nearest-exact'``,
    ``'linear'`` (3-D), ``'bilinear'``/``'bicubic'`` (4-D; bicubic with A = -0.75 and the
    border taps clamped), ``'trilinear'`` (5-D), ``'area'`` (adaptive average pooling) and
    ``'lanczos'`` (4-D, ``antialias=True`` only). ``align_corners`` (interpolating modes
    only, default False) maps the corner pixel centres onto each other; ``scale_factor``
    without ``recompute_scale_factor`` sets the output size to ``floor(size * scale)`` and
    samples with ``1 / scale`` (as PyTorch). ``antialias=True`` (bilinear/bicubic, 4-D)
    widens the filter by the downscaling factor, as PIL does.
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
        corners = False
    else:
        corners = bool(align_corners)
    out, scales = _output_size(input, size, scale_factor, mode, recompute_scale_factor)
    _check_mode(input, mode, corners, antialias)
    _check_sizes(input, out)
    if mode in ("nearest", "nearest-exact"):
        return _resample_nearest(input, out, scales, exact=mode == "nearest-exact")
    if not input.is_floating_point():  # the weights are fractions: PyTorch has no such kernel
        raise NotImplementedError(f'"upsample_{mode}" not implemented for '
                                  f"'{input.dtype.name.capitalize()}'")
    result = input
    for axis, (n, o, s) in enumerate(zip(input.shape[2:], out, scales)):
        maps = _axis_weights(mode, n, o, corners, s, antialias)
        if maps is not None:
            result = _resample(result, axis + 2, *maps)
    return result


# -- nearest: PyTorch's index arithmetic, reproduced bit for bit ----------------------------------

def _f32(value: float) -> float:
    """``value`` rounded to the nearest float32 (as C++ ``float`` arithmetic rounds)."""
    return float(struct.unpack("f", struct.pack("f", value))[0])


def _same(value: float) -> float:
    return value


def _nearest_indices(n: int, o: int, scale: float | None, exact: bool, single: bool,
                     legacy: bool) -> list[int]:
    """PyTorch's CPU source index per output position, bit for bit.

    ``s = 1 / scale_factor`` (or ``in / out``); legacy nearest is ``floor(i * s)``,
    nearest-exact ``floor(s * (i + 0.5))``. PyTorch has two index routines: its 4-D kernels
    (``legacy``) use ``nearest_idx``/``nearest_exact_idx`` (``s`` in float32, an unchanged
    or doubled size short-cut to ``i`` / ``i // 2``); its 3-D and 5-D kernels compute in the
    input's precision (float32 for ``single``) and floor as a float32 (``floorf``). Both are
    reproduced so every index matches PyTorch's, even where rounding decides.
    """
    if legacy:
        s = _f32(1.0 / scale) if scale is not None and scale > 0 else _f32(n / o)
        if exact:
            return [min(int(math.floor(_f32((i + 0.5) * s))), n - 1) for i in range(o)]
        if o == n:
            return list(range(o))
        if o == 2 * n:
            return [i >> 1 for i in range(o)]
        return [min(int(math.floor(_f32(_f32(float(i)) * s))), n - 1) for i in range(o)]
    r = _f32 if single else _same
    s = r(1.0 / scale) if scale is not None and scale > 0 else r(n / o)
    out = []
    for i in range(o):
        if exact:
            real = r(r(s * r(i + 0.5)) - 0.5)
            real = 0.0 if real < 0 else real
            index = int(math.floor(_f32(real + 0.5)))
        else:
            index = int(math.floor(_f32(r(s * i))))
        out.append(min(index, n - 1))
    return out


def _resample_nearest(input: Tensor, out: Sequence[int], scales: Sequence[Any],
                      exact: bool) -> Tensor:
    result = input
    for axis, (n, o, s) in enumerate(zip(input.shape[2:], out, scales)):
        maps = _nearest_maps(n, o, s, exact, input.dtype.itemsize < 8, input.ndim == 4)
        if maps is not None:
            result = _resample(result, axis + 2, *maps)
    return result


@functools.lru_cache(maxsize=256)
def _nearest_maps(n: int, o: int, scale: float | None, exact: bool, single: bool,
                  legacy: bool) -> tuple[_Taps, _Taps] | None:
    """Nearest indexing as one tap of weight 1 per output (``None``: the identity)."""
    index = _nearest_indices(n, o, scale, exact, single, legacy)
    if index == list(range(n)):
        return None
    taps = _pack([{j: 1.0} for j in index])
    return taps, _transpose(taps, n)


# -- separable weights --------------------------------------------------------------------------

def _source_scale(n: int, o: int, align_corners: bool, scale: float | None) -> float:
    """``area_pixel_compute_scale``: the input step per output step."""
    if align_corners:
        return (n - 1) / (o - 1) if o > 1 else 0.0
    return 1.0 / scale if scale is not None and scale > 0 else n / o


def _source_index(ratio: float, i: int, align_corners: bool, cubic: bool) -> float:
    """``area_pixel_compute_source_index``: where output ``i`` samples the input."""
    if align_corners:
        return ratio * i
    src = ratio * (i + 0.5) - 0.5
    return 0.0 if not cubic and src < 0 else src


def _cubic(t: Any, a: float = -0.75) -> list[Any]:
    """The four cubic-convolution weights for a fractional offset ``t`` (Keys, ``A = a``);
    ``t`` a float (``interpolate``) or a Tensor (``grid_sample``, differentiable)."""
    def near(x: Any) -> Any:
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: Any) -> Any:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1.0), near(t), near(1.0 - t), far(2.0 - t)]


def _linear_rows(n: int, o: int, align_corners: bool, scale: float | None) -> list[dict[Any, Any]]:
    ratio = _source_scale(n, o, align_corners, scale)
    rows = []
    for i in range(o):
        real = _source_index(ratio, i, align_corners, cubic=False)
        i0 = min(int(math.floor(real)), n - 1)
        lam = min(max(real - i0, 0.0), 1.0)
        i1 = i0 + (1 if i0 < n - 1 else 0)
        row: dict[Any, Any] = {}
        row[i0] = row.get(i0, 0.0) + 1.0 - lam
        row[i1] = row.get(i1, 0.0) + lam
        rows.append(row)
    return rows


def _cubic_rows(n: int, o: int, align_corners: bool, scale: float | None) -> list[dict[Any, Any]]:
    ratio = _source_scale(n, o, align_corners, scale)
    rows = []
    for i in range(o):
        real = _source_index(ratio, i, align_corners, cubic=True)
        i0 = min(int(math.floor(real)), n - 1)
        t = min(max(real - i0, 0.0), 1.0)
        row: dict[Any, Any] = {}
        for k, w in enumerate(_cubic(t)):
            j = max(min(i0 - 1 + k, n - 1), 0)  # taps past the border read the edge pixel
            row[j] = row.get(j, 0.0) + w
        rows.append(row)
    return rows


def _area_rows(n: int, o: int) -> list[dict[Any, Any]]:
    """Adaptive average pooling bins ``[floor(i n / o), ceil((i + 1) n / o))``."""
    rows = []
    for i in range(o):
        start, end = (i * n) // o, -(-((i + 1) * n) // o)
        rows.append({j: 1.0 / (end - start) for j in range(start, end)})
    return rows


def _triangle(x: float) -> float:
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _aa_cubic(x: float) -> float:
    # PIL's bicubic filter (a = -0.5), which PyTorch's antialiased bicubic reproduces
    a = -0.5
    x = abs(x)
    if x < 1.0:
        return ((a + 2.0) * x - (a + 3.0)) * x * x + 1
    if x < 2.0:
        return (((x - 5) * x + 8) * x - 4) * a
    return 0.0


def _sinc(x: float) -> float:
    return 1.0 if x == 0.0 else math.sin(math.pi * x) / (math.pi * x)


def _lanczos3(x: float) -> float:
    return _sinc(x) * _sinc(x / 3.0) if -3.0 < x < 3.0 else 0.0


_AA_FILTERS: dict[str, tuple[Callable[[float], float], int]] = {
    "bilinear": (_triangle, 2), "bicubic": (_aa_cubic, 4), "lanczos": (_lanczos3, 6),
}


def _aa_rows(mode: str, n: int, o: int, align_corners: bool, scale: float | None) -> list[dict[Any, Any]]:
    """PyTorch's (and PIL's) anti-aliased weights: the filter stretched by the downscale
    factor, truncated to the input and normalised to sum 1 per output."""
    filt, interp_size = _AA_FILTERS[mode]
    ratio = _source_scale(n, o, align_corners, scale)
    support = interp_size * 0.5 * ratio if ratio >= 1.0 else interp_size * 0.5
    invscale = 1.0 / ratio if ratio >= 1.0 else 1.0
    rows = []
    for i in range(o):
        center = ratio * (i + 0.5)
        xmin = max(int(center - support + 0.5), 0)
        xsize = min(int(center + support + 0.5), n) - xmin
        ws = [filt((j + xmin - center + 0.5) * invscale) for j in range(xsize)]
        total = sum(ws)
        rows.append({xmin + j: (w / total if total != 0.0 else w) for j, w in enumerate(ws)})
    return rows


def _sparse_rows(mode: str, n: int, o: int, align_corners: bool, scale: float | None,
                 antialias: bool) -> list[dict[Any, Any]] | None:
    """The ``(o, n)`` map of one axis as sparse rows, or ``None`` where it is the identity."""
    if antialias:
        return _aa_rows(mode, n, o, align_corners, scale)
    if mode == "area":
        return None if n == o else _area_rows(n, o)
    if n == o and mode != "bicubic":  # PyTorch copies an axis whose size does not change
        return None
    if mode == "bicubic":
        return _cubic_rows(n, o, align_corners, scale)
    return _linear_rows(n, o, align_corners, scale)


_Taps = tuple[tuple[tuple[int, ...], ...], tuple[tuple[float, ...], ...]]


def _pack(rows: Sequence[dict[Any, Any]]) -> _Taps:
    """Sparse rows as ``K`` taps ``(indices[k][i], weights[k][i])``, short rows padded with
    weight 0 (``K`` = the widest row)."""
    width = max(1, max(len(row) for row in rows))
    items = [sorted(row.items()) + [(0, 0.0)] * (width - len(row)) for row in rows]
    return (tuple(tuple(it[k][0] for it in items) for k in range(width)),
            tuple(tuple(it[k][1] for it in items) for k in range(width)))


def _transpose(taps: _Taps, n: int) -> _Taps:
    """The taps of the adjoint map (input ``j`` collects from every output that reads it)."""
    rows: list[dict[Any, Any]] = [{} for _ in range(n)]
    for idx_k, w_k in zip(*taps):
        for i, (j, w) in enumerate(zip(idx_k, w_k)):
            if w != 0.0:
                rows[j][i] = rows[j].get(i, 0.0) + w
    return _pack(rows)


@functools.lru_cache(maxsize=256)
def _axis_weights(mode: str, n: int, o: int, align_corners: bool, scale: float | None,
                  antialias: bool) -> tuple[_Taps, _Taps] | None:
    """One axis's map as taps and its adjoint's taps, or ``None`` for the identity; cached,
    since a layer resamples the same sizes at every step."""
    rows = _sparse_rows(mode, n, o, align_corners, scale, antialias)
    if rows is None:
        return None
    taps = _pack(rows)
    return taps, _transpose(taps, n)


_MAX_GATHER_TAPS = 8  # wider maps (area, strong anti-aliasing) run as one dense matmul


def _resample_data(backend: Backend, data: Any, axis: int, taps: _Taps) -> Any:
    """``data`` with dimension ``axis`` mapped through ``taps``: a weighted sum of ``K``
    ``take``s (``O(K)`` work per output), or a matmul with the dense map when ``K`` is large."""
    xp = backend.xp
    indices, weights = taps
    n, o = data.shape[axis], len(indices[0])
    if len(indices) > _MAX_GATHER_TAPS:
        dense = [[0.0] * n for _ in range(o)]
        for idx_k, w_k in zip(indices, weights):
            for i, (j, w) in enumerate(zip(idx_k, w_k)):
                dense[i][j] += w
        mat_t = xp.permute_dims(backend.from_host(dense, data.dtype), (1, 0))
        return xp.moveaxis(xp.matmul(xp.moveaxis(data, axis, -1), mat_t), -1, axis)
    shape = [1] * data.ndim
    shape[axis] = o
    int64 = backend.native_dtype(_dt.int64)
    out = None
    for idx_k, w_k in zip(indices, weights):
        picked = xp.take(data, backend.from_host(list(idx_k), int64), axis=axis)
        if any(w != 1.0 for w in w_k):
            picked = picked * xp.reshape(backend.from_host(list(w_k), data.dtype), tuple(shape))
        out = picked if out is None else out + picked
    return out


# A fixed linear map along one axis; its adjoint is the same op with the transposed taps, so
# gradients of every order are this one rule.
RESAMPLE = defop("ResampleBackward0", jvp=VIA_VJP, params=("axis", "taps", "adjoint"),
                 vjp=(lambda g, n: _resample(g, n.axis, n.adjoint, n.taps),))


def _resample(x: Tensor, axis: int, taps: _Taps, adjoint: _Taps) -> Tensor:
    """Record ``x`` mapped along ``axis`` (``adjoint``: the taps of the map's transpose)."""
    data = _resample_data(x._backend, x._data, axis, taps)
    return RESAMPLE.record(data, x._backend, (x,), axis=axis, taps=taps, adjoint=adjoint)


# -- grid_sample ---------------------------------------------------------------------------

_TYPE_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double"}


def _type_name(t: Tensor) -> str:
    return _TYPE_NAMES.get(t.dtype.name, t.dtype.name.capitalize())


def _check_grid_sample(input: Tensor, grid: Tensor, mode: str) -> None:
    """PyTorch's ``grid_sampler`` checks, in its order (all before any computation)."""
    if input.device != grid.device:
        raise RuntimeError(f"grid_sampler(): expected input and grid to be on same device, but "
                           f"input is on {input.device} and grid is on {grid.device}")
    if input.dtype is not grid.dtype:
        raise RuntimeError(f"expected scalar type {_type_name(input)} but found "
                           f"{_type_name(grid)}")
    if grid.ndim == 0 or input.ndim == 0 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(f"grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in last "
                           f"dimension, but got grid with sizes {list(grid.shape)}")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    for axis in range(2, input.ndim):
        if input.shape[axis] == 0:
            raise RuntimeError(f"grid_sampler(): expected input to have non-empty spatial "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {axis} being empty")
    if mode == "bicubic" and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.is_floating_point():
        raise RuntimeError(f"grid_sampler(): expected a floating point input, but got "
                           f"{input.dtype.name}")


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """``[-1, 1]`` -> pixel coordinates (corner centres, or corner edges without align)."""
    if align_corners:
        return (coord + 1.0) * ((size - 1) / 2.0)
    return ((coord + 1.0) * size - 1.0) / 2.0


def _clip(coord: Tensor, size: int) -> Tensor:
    """Clamp into ``[0, size - 1]``; the bounds themselves get gradient 0, and NaN goes to 0,
    as PyTorch's."""
    hi = float(size - 1)
    low = (coord <= 0.0) | (coord != coord)
    return ew.where(low, 0.0, ew.where(coord >= hi, hi, coord))


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Reflect ``coord`` into ``[twice_low / 2, twice_high / 2]`` (PyTorch's
    ``reflect_coordinates``; the gradient is +-1 by the parity of the flips)."""
    if twice_low == twice_high:
        return coord * 0.0
    low = twice_low / 2.0
    span = (twice_high - twice_low) / 2.0
    shifted = coord - low
    folded = ew.where(shifted < 0.0, -shifted, shifted)  # |x| with gradient +1 at 0
    flips = (folded.detach() / span).floor()
    extra = folded - flips * span
    odd = flips.remainder(2.0) == 1.0
    return ew.where(odd, (span + low) - extra, extra + low)


def _pad_coord(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """``compute_coordinates``: the border/reflection rule (zeros: unchanged)."""
    if padding_mode == "border":
        return _clip(coord, size)
    if padding_mode == "reflection":
        if align_corners:
            coord = _reflect(coord, 0, 2 * (size - 1))
        else:
            coord = _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


class _Reader:
    """Reads ``input`` (as ``(N, C, L)``) at integer positions given per spatial axis."""

    def __init__(self, input: Tensor) -> None:
        self.backend = input._backend
        self.xp = self.backend.xp
        n, c, *spatial = input.shape
        self.spatial = spatial
        self.flat = input.reshape(n, c, math.prod(spatial))
        self.strides = [math.prod(spatial[k + 1:]) for k in range(len(spatial))]

    def __call__(self, positions: Sequence[Any]) -> tuple[Tensor, Tensor]:
        """``(values (N, C, P), in-bounds mask (N, 1, P))`` at float-valued integer
        positions (native ``(N, P)`` arrays, one per axis); out-of-bounds reads give 0."""
        from arraygrad.tensor import Tensor as _T

        xp = self.xp
        valid = None
        flat_index = None
        for pos, size, stride in zip(positions, self.spatial, self.strides):
            ok = (pos >= 0) & (pos <= size - 1)  # False for NaN as well
            valid = ok if valid is None else (valid & ok)
        assert valid is not None
        for pos, stride in zip(positions, self.strides):
            safe = xp.astype(xp.where(valid, pos, xp.zeros_like(pos)), xp.int64)
            term = safe * stride
            flat_index = term if flat_index is None else flat_index + term
        n, p = valid.shape
        index = _T._wrap(xp.reshape(flat_index, (n, 1, p)), self.backend)
        values = self.flat.take_along_dim(index, 2)
        mask = _T._wrap(xp.reshape(valid, (n, 1, p)), self.backend)
        return values, mask


def _linear_sample(read: _Reader, coords: Sequence[Tensor]) -> Tensor:
    """Multilinear interpolation over the ``2**d`` corners around each point."""
    xp = read.xp
    from arraygrad.tensor import Tensor as _T

    floors = [xp.floor(c._data) for c in coords]
    fracs = [c - _T._wrap(f, read.backend) for c, f in zip(coords, floors)]
    out: Tensor | None = None
    d = len(coords)
    for corner in range(2 ** d):
        bits = [(corner >> (d - 1 - k)) & 1 for k in range(d)]
        weight: Tensor | None = None
        for bit, frac in zip(bits, fracs):
            w = frac if bit else 1.0 - frac
            weight = w if weight is None else weight * w
        assert weight is not None
        values, mask = read([f + bit for f, bit in zip(floors, bits)])
        # out-of-bounds corners read 0 but keep their weight: a NaN weight gives NaN, as PyTorch
        term = ew.where(mask, values, 0.0) * weight.unsqueeze(1)
        out = term if out is None else out + term
    assert out is not None
    return out


def _nearest_sample(read: _Reader, coords: Sequence[Tensor]) -> Tensor:
    """The pixel nearest each point (ties to even, as ``nearbyint``); no gradient to ``grid``."""
    values, mask = read([read.xp.round(c._data) for c in coords])
    return ew.where(mask, values, 0.0)


def _bicubic_sample(read: _Reader, coords: Sequence[Tensor], padding_mode: str,
                    align_corners: bool) -> Tensor:
    """Bicubic (A = -0.75) over the 4x4 taps; each tap position follows the padding rule."""
    xp = read.xp
    from arraygrad.tensor import Tensor as _T

    floors = [xp.floor(c._data) for c in coords]
    weights = [_cubic(c - _T._wrap(f, read.backend)) for c, f in zip(coords, floors)]
    taps = []
    for f, size in zip(floors, read.spatial):
        axis_taps = []
        for k in range(4):
            at = _pad_coord(_T._wrap(f + (k - 1), read.backend), size, padding_mode,
                            align_corners)._data
            axis_taps.append(xp.trunc(at))  # PyTorch casts the padded coordinate to int64
        taps.append(axis_taps)
    out: Tensor | None = None
    for j in range(4):
        for k in range(4):
            values, mask = read([taps[0][j], taps[1][k]])
            w = weights[0][j] * weights[1][k]
            term = ew.where(mask, values, 0.0) * w.unsqueeze(1)
            out = term if out is None else out + term
    assert out is not None
    return out


@indexed_by("grid")
def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> Tensor:
    """Sample ``input`` ``(N, C, [D,] H, W)`` at the ``[-1, 1]`` locations of ``grid``
    ``(N, [Do,] Ho, Wo, 2 or 3)`` (``grid[..., 0]`` indexes W), as PyTorch's ``grid_sample``.

    ``mode``: ``'bilinear'`` (trilinear for 5-D), ``'nearest'``, ``'bicubic'`` (4-D);
    ``padding_mode``: ``'zeros'``, ``'border'``, ``'reflection'``. Differentiable w.r.t.
    ``input`` and ``grid`` (``grid`` gets zeros in ``'nearest'`` mode, as PyTorch).
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    _check_grid_sample(input, grid, mode)
    n, c, *spatial = input.shape
    out_spatial = list(grid.shape[1:-1])
    d = len(spatial)
    points = grid.reshape(n, math.prod(out_spatial), d)
    # spatial axis k (D, H, W order) is indexed by grid component d - 1 - k
    coords = [_unnormalize(points[..., d - 1 - k], size, align_corners)
              for k, size in enumerate(spatial)]
    read = _Reader(input)
    if mode == "bicubic":
        out = _bicubic_sample(read, coords, padding_mode, align_corners)
    else:
        coords = [_pad_coord(cd, size, padding_mode, align_corners)
                  for cd, size in zip(coords, spatial)]
        if mode == "nearest":
            out = _nearest_sample(read, coords)
            if grid.requires_grad:  # PyTorch's grid gradient here is zeros, not "unused"
                from arraygrad.tensor import Tensor as _T

                never = _T._wrap(read.xp.zeros((), dtype=read.xp.bool), read.backend)
                out = out + ew.where(never, grid.sum(), 0.0)
        else:
            out = _linear_sample(read, coords)
    return out.reshape(n, c, *out_spatial)


# -- affine_grid -----------------------------------------------------------------------------

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def _base_coords(steps: int, align_corners: bool) -> list[float]:
    """``linspace(-1, 1, steps)``, shrunk to pixel centres without ``align_corners``."""
    if steps <= 1:
        return [0.0] * steps
    values = [-1.0 + 2.0 * i / (steps - 1) for i in range(steps)]
    if not align_corners:
        values = [v * (steps - 1) / steps for v in values]
    return values


def affine_grid(theta: Tensor, size: Sequence[int], align_corners: bool | None = None) -> Tensor:
    """The ``grid_sample`` grid of the affine maps ``theta`` (``(N, 2, 3)`` for a 4-D
    ``size`` ``(N, C, H, W)``, ``(N, 3, 4)`` for a 5-D one): ``(N, H, W, 2)`` or
    ``(N, D, H, W, 3)``, differentiable w.r.t. ``theta``."""
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(v) for v in size]
    shape = tuple(theta.shape)
    if len(size) == 4:
        if theta.ndim != 3 or shape[-2:] != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                             f"{tuple(size)}. Got {theta.shape}.")
    elif len(size) == 5:
        if theta.ndim != 3 or shape[-2:] != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size "
                             f"{tuple(size)}. Got {theta.shape}.")
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {tuple(size)}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
                      "grids when align_corners=True. This is not an intended use case of "
                      "affine_grid. See the documentation of affine_grid for details.",
                      stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {tuple(size)}")
    d = len(spatial)
    if shape[0] != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{shape[0]}, {d + 1}] but got: [{size[0]}, {d + 1}].")
    axes = [_base_coords(s, align_corners) for s in spatial]  # D, H, W order
    rows = []
    for flat in range(math.prod(spatial)):
        idx = []
        for s in reversed(spatial):
            idx.append(flat % s)
            flat //= s
        # homogeneous (x, y[, z], 1): x runs along W, the last axis
        rows.append([axes[d - 1 - k][idx[k]] for k in range(d)] + [1.0])
    from arraygrad.tensor import Tensor as _T

    backend = theta._backend
    base = _T._wrap(backend.from_host(rows, theta._data.dtype), backend)
    grid = base @ theta.transpose(1, 2)  # (P, d+1) @ (N, d+1, d) -> (N, P, d)
    return grid.reshape(size[0], *spatial, d)


# -- deprecated aliases -------------------------------------------------------------------------

def upsample(input: Tensor, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
             align_corners: bool | None = None) -> Tensor:
    """Deprecated alias of ``interpolate`` (warns, as PyTorch)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated alias of ``interpolate(mode='nearest')`` (warns, as PyTorch)."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """Deprecated alias of ``interpolate(mode='bilinear', align_corners=True)`` (warns)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use "
                  "`nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- pixel and channel shuffles ---------------------------------------------------------------

def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C*r*r, H, W)`` -> ``(*, C, H*r, W*r)``: channels become sub-pixel positions."""
    r = int(upscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got "
                           f"input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    b = len(lead)
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    perm = tuple(range(b)) + (b, b + 3, b + 1, b + 4, b + 2)
    return x.permute(perm).reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of ``pixel_shuffle``: ``(*, C, H*r, W*r)`` -> ``(*, C*r*r, H, W)``."""
    r = int(downscale_factor)
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but "
                           f"got input with {input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *lead, c, h, w = input.shape
    if h % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by "
                           f"downscale_factor, but input.size(-2)={h} is not divisible by {r}")
    if w % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by "
                           f"downscale_factor, but input.size(-1)={w} is not divisible by {r}")
    b = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    perm = tuple(range(b)) + (b, b + 2, b + 4, b + 1, b + 3)
    return x.permute(perm).reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``(N, C, *)``: the channels as ``(groups, C / groups)`` transposed (ShuffleNet)."""
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    g = int(groups)
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    n, c, *rest = input.shape
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {g} groups.")
    return input.reshape(n, g, c // g, *rest).transpose(1, 2).reshape(n, c, *rest)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``channel_shuffle`` (PyTorch's name for its native kernel)."""
    return channel_shuffle(input, groups)
