"""Resampling (``nn.functional``): interpolate in every mode, grid_sample, affine_grid and the
channel shuffle; each case is small, so finite differences stay quick."""

from typing import Any, Callable

from arraygrad.conformance.cases._make import case
from arraygrad.nn import functional as F


def _interp(**kw: Any) -> Callable[..., Any]:
    return lambda a: F.interpolate(a, **kw)


def _grid(**kw: Any) -> Callable[..., Any]:
    return lambda a, g: F.grid_sample(a, g, **kw)


CASES = (
    case("interpolate", "nearest-2d", _interp(scale_factor=(1.5, 2)), [(1, 2, 2, 3)]),
    case("interpolate", "nearest-exact-1d", _interp(size=5, mode="nearest-exact"), [(1, 2, 3)]),
    case("interpolate", "linear", _interp(size=5, mode="linear"), [(2, 1, 3)]),
    case("interpolate", "linear-align", _interp(size=2, mode="linear", align_corners=True),
         [(1, 2, 5)]),
    case("interpolate", "bilinear", _interp(size=(3, 5), mode="bilinear"), [(1, 2, 2, 3)]),
    case("interpolate", "bilinear-scale", _interp(scale_factor=1.7, mode="bilinear"),
         [(1, 1, 2, 3)]),
    case("interpolate", "bicubic-align", _interp(size=(4, 3), mode="bicubic", align_corners=True),
         [(1, 1, 3, 4)]),
    case("interpolate", "bicubic", _interp(size=(2, 5), mode="bicubic"), [(1, 1, 4, 3)]),
    case("interpolate", "trilinear", _interp(size=(3, 2, 3), mode="trilinear"), [(1, 1, 2, 3, 2)]),
    case("interpolate", "area", _interp(size=(2, 3), mode="area"), [(1, 2, 5, 4)]),
    case("interpolate", "bilinear-antialias", _interp(size=(2, 3), mode="bilinear",
                                                      antialias=True), [(1, 1, 5, 6)]),
    case("grid_sample", "bilinear-zeros", _grid(align_corners=False), [(1, 2, 3, 4), (1, 2, 3, 2)],
         low=-1.2, high=1.2),
    case("grid_sample", "bilinear-border-align", _grid(padding_mode="border", align_corners=True),
         [(2, 1, 3, 3), (2, 2, 2, 2)], low=-1.3, high=1.3),
    case("grid_sample", "bilinear-reflection", _grid(padding_mode="reflection",
                                                     align_corners=False),
         [(1, 1, 3, 4), (1, 2, 3, 2)], low=-1.5, high=1.5),
    case("grid_sample", "bicubic", _grid(mode="bicubic", align_corners=False),
         [(1, 1, 3, 3), (1, 1, 3, 2)], low=-1.1, high=1.1),
    case("grid_sample", "nearest", _grid(mode="nearest", padding_mode="border",
                                         align_corners=False),
         [(1, 2, 3, 3), (1, 2, 2, 2)], low=-0.9, high=0.9),
    case("grid_sample", "trilinear-5d", _grid(align_corners=True),
         [(1, 1, 2, 3, 2), (1, 1, 2, 2, 3)], low=-1.1, high=1.1),
    case("affine_grid", "2d", lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False),
         [(2, 2, 3)]),
    case("affine_grid", "3d-align", lambda t: F.affine_grid(t, (1, 1, 2, 3, 2),
                                                            align_corners=True), [(1, 3, 4)]),
    case("channel_shuffle", "groups2", lambda a: F.channel_shuffle(a, 2), [(2, 4, 3)]),
    case("pixel_unshuffle", "r2", lambda a: F.pixel_unshuffle(a, 2), [(1, 1, 2, 4)]),
)
