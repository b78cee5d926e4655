"""Convolution, pooling and padding for 1, 2 and 3 spatial dims (``arraygrad.nn.functional``).

Max-type pools take ``grid`` inputs (distinct values far apart), so finite differences never
move a window's maximum; ``lp_pool`` takes positive inputs (its ``x ** p``).
"""

from arraygrad.conformance.cases._make import case
from arraygrad.nn import functional as F

CASES = (
    case("conv3d", "stride-pad-dilation",
         lambda x, w, b: F.conv3d(x, w, b, stride=(1, 2, 1), padding=1, dilation=(2, 1, 1)),
         [(1, 2, 3, 4, 3), (2, 2, 2, 2, 1), (2,)]),
    case("conv3d", "same-groups", lambda x, w: F.conv3d(x, w, padding="same", groups=2),
         [(4, 2, 3, 2), (2, 2, 2, 1, 2)]),
    case("conv_transpose1d", "stride-output-padding-groups",
         lambda x, w, b: F.conv_transpose1d(x, w, b, stride=2, padding=1, output_padding=1,
                                            groups=2, dilation=2),
         [(2, 2, 3), (2, 2, 2), (4,)]),
    case("conv_transpose3d", "stride-dilation",
         lambda x, w: F.conv_transpose3d(x, w, stride=(2, 1, 1), padding=(0, 1, 0),
                                         dilation=(1, 1, 2)),
         [(1, 2, 2, 3, 2), (2, 1, 2, 2, 2)]),
    case("max_pool1d", "ceil-dilation",
         lambda x: F.max_pool1d(x, 3, 2, 1, dilation=2, ceil_mode=True), [(2, 2, 7)], "grid"),
    case("max_pool3d", "padding", lambda x: F.max_pool3d(x, 2, (1, 2, 2), padding=(1, 0, 1)),
         [(1, 2, 3, 4, 3)], "grid"),
    case("avg_pool1d", "exclude-pad", lambda x: F.avg_pool1d(
        x, 3, 2, 1, ceil_mode=True, count_include_pad=False), [(2, 2, 6)]),
    case("avg_pool3d", "divisor", lambda x: F.avg_pool3d(x, 2, 1, 1, divisor_override=3),
         [(1, 2, 2, 3, 2)]),
    case("adaptive_avg_pool1d", "uneven", lambda x: F.adaptive_avg_pool1d(x, 3), [(2, 2, 5)]),
    case("adaptive_avg_pool3d", "uneven", lambda x: F.adaptive_avg_pool3d(x, (2, None, 3)),
         [(1, 2, 3, 2, 4)]),
    case("adaptive_max_pool1d", "uneven", lambda x: F.adaptive_max_pool1d(x, 3), [(2, 2, 5)],
         "grid"),
    case("adaptive_max_pool2d", "uneven", lambda x: F.adaptive_max_pool2d(x, (2, 3)),
         [(1, 2, 3, 5)], "grid"),
    case("lp_pool1d", "p2", lambda x: F.lp_pool1d(x, 2.0, 2), [(1, 2, 6)], low=0.5, high=1.5),
    case("lp_pool2d", "p3-ceil", lambda x: F.lp_pool2d(x, 3.0, (2, 1), ceil_mode=True),
         [(1, 2, 5, 3)], low=0.5, high=1.5),
    case("max_unpool1d", "output-size",
         lambda x, i: F.max_unpool1d(x, i, 2, output_size=(7,)), [(1, 1, 3)],
         consts=[[[[1, 2, 5]]]]),
    case("max_unpool2d", "default-size", lambda x, i: F.max_unpool2d(x, i, 2), [(1, 1, 2, 2)],
         consts=[[[[[0, 3], [9, 10]]]]]),
    case("pad", "reflect-1d", lambda x: F.pad(x, (2, 1), mode="reflect"), [(2, 3, 4)]),
    case("pad", "replicate-2d-crop", lambda x: F.pad(x, (1, 2, 2, -1), mode="replicate"),
         [(2, 3, 3)]),
    case("pad", "circular-3d", lambda x: F.pad(x, (1, 1, 2, 0, 0, 1), mode="circular"),
         [(1, 1, 2, 2, 2)]),
    case("pad", "constant-value", lambda x: F.pad(x, (1, -1, 2, 0), value=3.0), [(2, 3)]),
)
