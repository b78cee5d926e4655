"""F.grid_sample, F.affine_grid, pixel/channel shuffles: values against a scalar per-point loop
(PyTorch's GridSampler formulas written out), identities, gradcheck/gradgradcheck w.r.t. the
input and the grid in float64, errors, and PyTorch where installed."""

import math
import warnings

import numpy as np
import pytest
from nn_helpers import arr, t64

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck, gradgradcheck
from arraygrad.nn import functional as F

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

rng = np.random.default_rng(21)


# -- scalar reference ---------------------------------------------------------------------------

def _unnorm(c, size, align):
    return (c + 1) / 2 * (size - 1) if align else ((c + 1) * size - 1) / 2


def _reflect(x, twice_low, twice_high):
    if twice_low == twice_high:
        return 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    x = abs(x - low)
    extra = math.fmod(x, span)
    flips = math.floor(x / span)
    return extra + low if flips % 2 == 0 else span - extra + low


def _pad(x, size, padding, align):
    if padding == "border":
        return min(size - 1.0, max(x, 0.0))
    if padding == "reflection":
        x = _reflect(x, 0, 2 * (size - 1)) if align else _reflect(x, -1, 2 * size - 1)
        return min(size - 1.0, max(x, 0.0))
    return x


def _read(img, pos):
    if all(0 <= p < s for p, s in zip(pos, img.shape[1:])):
        return img[(slice(None),) + tuple(pos)]
    return np.zeros(img.shape[0])


def _keys(x, a=-0.75):
    x = abs(x)
    if x <= 1:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def reference(x, grid, mode, padding, align):
    """grid_sample one output point at a time (x: (N, C, *S), grid: (N, *O, d))."""
    n, c, *spatial = x.shape
    d = len(spatial)
    out_sp = grid.shape[1:-1]
    out = np.zeros((n, c) + tuple(out_sp))
    for b in range(n):
        for pos in np.ndindex(*out_sp):
            g = grid[(b,) + pos]
            coords = [_unnorm(g[d - 1 - k], s, align) for k, s in enumerate(spatial)]
            if mode == "bicubic":
                base = [math.floor(cd) for cd in coords]
                ts = [cd - f for cd, f in zip(coords, base)]
                acc = np.zeros(c)
                for j in range(4):
                    for k in range(4):
                        taps = [_pad(base[0] - 1 + j, spatial[0], padding, align),
                                _pad(base[1] - 1 + k, spatial[1], padding, align)]
                        w = _keys(ts[0] - (j - 1)) * _keys(ts[1] - (k - 1))
                        acc = acc + w * _read(x[b], [int(t) for t in taps])
                out[(b, slice(None)) + pos] = acc
                continue
            coords = [_pad(cd, s, padding, align) for cd, s in zip(coords, spatial)]
            if mode == "nearest":
                out[(b, slice(None)) + pos] = _read(x[b], [int(np.rint(cd)) for cd in coords])
                continue
            base = [math.floor(cd) for cd in coords]
            acc = np.zeros(c)
            for corner in np.ndindex(*([2] * d)):
                w = math.prod((cd - f) if bit else (1 - (cd - f))
                              for cd, f, bit in zip(coords, base, corner))
                acc = acc + w * _read(x[b], [f + bit for f, bit in zip(base, corner)])
            out[(b, slice(None)) + pos] = acc
    return out


COMBOS = [(m, p, a) for m in ("bilinear", "nearest", "bicubic")
          for p in ("zeros", "border", "reflection") for a in (False, True)]


@pytest.mark.parametrize("mode,padding,align", COMBOS)
def test_grid_sample_4d_matches_the_scalar_loop(mode, padding, align):
    x = rng.standard_normal((2, 2, 3, 4))
    grid = rng.uniform(-1.6, 1.6, size=(2, 3, 5, 2))
    out = F.grid_sample(t64(x), t64(grid), mode=mode, padding_mode=padding, align_corners=align)
    np.testing.assert_allclose(arr(out), reference(x, grid, mode, padding, align), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("mode,padding,align", [c for c in COMBOS if c[0] != "bicubic"])
def test_grid_sample_5d_matches_the_scalar_loop(mode, padding, align):
    x = rng.standard_normal((1, 2, 3, 2, 4))
    grid = rng.uniform(-1.5, 1.5, size=(1, 2, 3, 2, 3))
    out = F.grid_sample(t64(x), t64(grid), mode=mode, padding_mode=padding, align_corners=align)
    np.testing.assert_allclose(arr(out), reference(x, grid, mode, padding, align), rtol=1e-12,
                               atol=1e-12)


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding", ["zeros", "border", "reflection"])
def test_identity_affine_grid_reproduces_the_input(mode, padding):
    x = t64(rng.standard_normal((2, 3, 4, 5)))
    theta = t64(np.tile(np.eye(2, 3), (2, 1, 1)))
    for align in (False, True):
        grid = F.affine_grid(theta, [2, 3, 4, 5], align_corners=align)
        out = F.grid_sample(x, grid, mode=mode, padding_mode=padding, align_corners=align)
        np.testing.assert_allclose(arr(out), arr(x), atol=1e-12)


def test_affine_grid_values():
    theta = t64([[[2.0, 0.5, 0.1], [-0.3, 1.5, 0.2]]])
    for align in (False, True):
        grid = arr(F.affine_grid(theta, (1, 1, 3, 4), align_corners=align))
        xs = np.linspace(-1, 1, 4) * (1 if align else 3 / 4)
        ys = np.linspace(-1, 1, 3) * (1 if align else 2 / 3)
        for i, y in enumerate(ys):
            for j, x in enumerate(xs):
                np.testing.assert_allclose(grid[0, i, j], arr(theta)[0] @ [x, y, 1.0], atol=1e-12)
    theta3 = t64(rng.standard_normal((2, 3, 4)))
    grid3 = arr(F.affine_grid(theta3, (2, 1, 2, 3, 4), align_corners=True))
    assert grid3.shape == (2, 2, 3, 4, 3)
    z, y, x = -1.0, 1.0, np.linspace(-1, 1, 4)[2]
    np.testing.assert_allclose(grid3[1, 0, 2, 2], arr(theta3)[1] @ [x, y, z, 1.0], atol=1e-12)
    with pytest.warns(UserWarning, match="unit-size grids"):
        unit = F.affine_grid(t64([[[1.0, 0, 0], [0, 1.0, 0]]]), (1, 1, 1, 3), align_corners=True)
    np.testing.assert_allclose(arr(unit)[0, 0], [[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]])


GRAD_GRID = np.array([[-0.83, -0.41], [0.13, 0.37], [-1.31, 0.57]]).reshape(1, 1, 3, 2)
# (points away from pixel centres and borders: the sampler is smooth there)


@pytest.mark.parametrize("mode,padding,align", [c for c in COMBOS if c[0] != "nearest"])
def test_gradients_reach_input_and_grid(mode, padding, align):
    x = t64(rng.standard_normal((1, 2, 3, 3)), requires_grad=True)
    grid = t64(GRAD_GRID, requires_grad=True)

    def fn(a, g):
        return F.grid_sample(a, g, mode=mode, padding_mode=padding, align_corners=align)

    assert gradcheck(fn, (x, grid))
    if (mode, padding, align) in (("bilinear", "reflection", True), ("bicubic", "border", False),
                                  ("bilinear", "zeros", False)):
        assert gradgradcheck(fn, (x, grid))


def test_gradgradcheck_5d_and_affine_grid():
    x5 = t64(rng.standard_normal((1, 1, 2, 3, 3)), requires_grad=True)
    g5 = t64(rng.uniform(-0.9, 0.9, size=(1, 2, 1, 1, 3)), requires_grad=True)
    assert gradgradcheck(lambda a, g: F.grid_sample(a, g, align_corners=False), (x5, g5))
    theta = t64(rng.standard_normal((2, 2, 3)), requires_grad=True)
    assert gradgradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 2), align_corners=False), (theta,))
    theta3 = t64(rng.standard_normal((1, 3, 4)), requires_grad=True)
    assert gradcheck(lambda t: F.affine_grid(t, (1, 1, 2, 2, 3), align_corners=True), (theta3,))


def test_nearest_grid_gradient_is_zero_and_input_gradient_scatters():
    x = t64(rng.standard_normal((1, 1, 2, 2)), requires_grad=True)
    grid = t64([[[[-0.6, -0.6], [-0.7, -0.4]]]], requires_grad=True)  # both at pixel (0, 0)
    out = F.grid_sample(x, grid, mode="nearest", align_corners=False)
    gx, gg = ag.autograd.grad(out.sum(), (x, grid))
    np.testing.assert_array_equal(arr(gx), [[[[2.0, 0.0], [0.0, 0.0]]]])
    np.testing.assert_array_equal(arr(gg), np.zeros((1, 1, 2, 2)))


def test_border_and_reflection_extend_the_image():
    x = t64([[[[1.0, 2.0, 3.0]]]])  # (1, 1, 1, 3)
    far = t64([[[[3.0, 0.0], [-3.0, 0.0]]]])  # x=+-3: far outside
    border = F.grid_sample(x, far, padding_mode="border", align_corners=True)
    np.testing.assert_allclose(arr(border).ravel(), [3.0, 1.0])
    zeros = F.grid_sample(x, far, padding_mode="zeros", align_corners=True)
    np.testing.assert_allclose(arr(zeros).ravel(), [0.0, 0.0])
    # align_corners: x=1.5 lies half a width past the right edge and reflects to x=0.5
    refl = F.grid_sample(x, t64([[[[1.5, 0.0]]]]), padding_mode="reflection", align_corners=True)
    np.testing.assert_allclose(arr(refl).ravel(), [2.5])


@np.errstate(invalid="ignore")  # inf - inf on the way, as in PyTorch's kernel
def test_non_finite_grid_points_follow_pytorch():
    x = t64(np.arange(1.0, 10.0).reshape(1, 1, 3, 3))
    grid = t64([[[[float("nan"), 0.0], [float("inf"), 0.0], [0.2, float("nan")]]]])
    # border/reflection send NaN to coordinate 0 (and reflect inf to NaN, hence 0)
    border = F.grid_sample(x, grid, padding_mode="border", align_corners=False)
    np.testing.assert_allclose(arr(border).ravel(), [4.0, 6.0, 2.3])
    refl = F.grid_sample(x, grid, padding_mode="reflection", align_corners=False)
    np.testing.assert_allclose(arr(refl).ravel(), [4.0, 4.0, 2.3])
    # zeros: the NaN weights make NaN (bilinear); nearest reads nothing, 0
    assert np.isnan(arr(F.grid_sample(x, grid, align_corners=False))).all()
    np.testing.assert_array_equal(
        arr(F.grid_sample(x, grid, mode="nearest", align_corners=False)).ravel(), [0.0] * 3)


def test_grid_sample_errors_and_warning():
    x, g = ag.randn(1, 2, 3, 3), ag.rand(1, 4, 4, 2)
    cases = [
        (ValueError, "expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'foo'",
         lambda: F.grid_sample(x, g, mode="foo", align_corners=False)),
        (ValueError, "expected padding_mode to be 'zeros', 'border', or 'reflection'",
         lambda: F.grid_sample(x, g, padding_mode="foo", align_corners=False)),
        (RuntimeError, "expected scalar type Float but found Double",
         lambda: F.grid_sample(x, g.double(), align_corners=False)),
        (RuntimeError, "expected grid and input to have same batch size",
         lambda: F.grid_sample(x, ag.rand(2, 4, 4, 2), align_corners=False)),
        (RuntimeError, "expected grid to have size 2 in last dimension",
         lambda: F.grid_sample(x, ag.rand(1, 4, 4, 3), align_corners=False)),
        (RuntimeError, "with dimension 2 being empty",
         lambda: F.grid_sample(ag.randn(1, 2, 0, 3), g, align_corners=False)),
        (RuntimeError, "bicubic interpolation only supports 4D input",
         lambda: F.grid_sample(ag.randn(1, 2, 3, 3, 3), ag.rand(1, 2, 2, 2, 3), mode="bicubic",
                               align_corners=False)),
        (ValueError, "Expected theta to have floating point type",
         lambda: F.affine_grid(ag.tensor([[[1, 0, 0], [0, 1, 0]]]), (1, 1, 2, 2),
                               align_corners=False)),
        (ValueError, "Expected a batch of 2D affine matrices of shape Nx2x3",
         lambda: F.affine_grid(ag.randn(1, 3, 3), (1, 1, 2, 2), align_corners=False)),
        (ValueError, "Expected a batch of 3D affine matrices of shape Nx3x4",
         lambda: F.affine_grid(ag.randn(1, 2, 3), (1, 1, 2, 2, 2), align_corners=False)),
        (NotImplementedError, "affine_grid only supports 4D and 5D sizes",
         lambda: F.affine_grid(ag.randn(1, 2, 3), (1, 1, 3), align_corners=False)),
        (ValueError, "Expected non-zero, positive output size",
         lambda: F.affine_grid(ag.randn(1, 2, 3), (1, 1, 0, 3), align_corners=False)),
        (RuntimeError, "first two dimensions of batch2",
         lambda: F.affine_grid(ag.randn(2, 2, 3), (1, 1, 3, 3), align_corners=False)),
    ]
    for cls, match, call in cases:
        with pytest.raises(cls, match=match):
            call()
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F.grid_sample(x, g)
    if "strict" in {b.name for b in ag.backends.available() if b.available}:
        for mode in ("bilinear", "nearest", "bicubic"):
            with pytest.raises(RuntimeError, match="expected input and grid to be on same device"):
                F.grid_sample(x, g.to("strict"), mode=mode, align_corners=False)
    with pytest.warns(UserWarning, match="Default grid_sample and affine_grid behavior"):
        F.affine_grid(ag.randn(1, 2, 3), (1, 1, 2, 2))
    assert F.grid_sample(ag.randn(0, 2, 3, 3), ag.rand(0, 2, 2, 2),
                         align_corners=False).shape == (0, 2, 2, 2)


# -- shuffles -----------------------------------------------------------------------------------

def test_channel_shuffle_values_module_and_errors():
    x = t64(np.arange(12.0).reshape(1, 6, 2))
    np.testing.assert_array_equal(arr(F.channel_shuffle(x, 2))[0, :, 0], [0, 6, 2, 8, 4, 10])
    np.testing.assert_array_equal(arr(F.channel_shuffle(x, 3))[0, :, 1], [1, 5, 9, 3, 7, 11])
    m = nn.ChannelShuffle(3)
    assert repr(m) == "ChannelShuffle(groups=3)" and m.groups == 3
    np.testing.assert_array_equal(arr(m(x)), arr(F.native_channel_shuffle(x, 3)))
    y = t64(rng.standard_normal((2, 4, 3, 2)), requires_grad=True)
    assert gradgradcheck(lambda a: F.channel_shuffle(a, 2), (y,))
    with pytest.raises(RuntimeError, match="expects input with > 2 dims"):
        F.channel_shuffle(ag.randn(2, 4), 2)
    with pytest.raises(RuntimeError, match="must be positive. Value of groups:0"):
        F.channel_shuffle(ag.randn(2, 4, 3), 0)
    with pytest.raises(RuntimeError, match="Got 3 channels and 2 groups"):
        F.channel_shuffle(ag.randn(2, 3, 4), 2)


def test_pixel_unshuffle_module_inverse_and_errors():
    x = t64(rng.standard_normal((2, 3, 4, 6)))
    m = nn.PixelUnshuffle(2)
    assert repr(m) == "PixelUnshuffle(downscale_factor=2)"
    out = m(x)
    assert out.shape == (2, 12, 2, 3)
    # channel c*4 + i*2 + j holds pixel (2h + i, 2w + j) of channel c
    np.testing.assert_array_equal(arr(out)[:, 1 * 4 + 1 * 2 + 0], arr(x)[:, 1, 1::2, 0::2])
    np.testing.assert_array_equal(arr(nn.PixelShuffle(2)(out)), arr(x))
    with pytest.raises(RuntimeError, match=r"height to be divisible by downscale_factor, but "
                                           r"input.size\(-2\)=3 is not divisible by 2"):
        F.pixel_unshuffle(ag.randn(1, 1, 3, 4), 2)
    with pytest.raises(RuntimeError, match="positive downscale_factor, but got 0"):
        F.pixel_unshuffle(ag.randn(1, 1, 2, 2), 0)
    with pytest.raises(RuntimeError, match="positive upscale_factor, but got -1"):
        F.pixel_shuffle(ag.randn(1, 4, 2, 2), -1)


# -- against PyTorch ----------------------------------------------------------------------------

def _compare(ours_fn, theirs_fn, arrays, tol):
    tins = [torch.tensor(a, requires_grad=True) for a in arrays]
    ains = [ag.tensor(a, requires_grad=True) for a in arrays]
    tout, out = theirs_fn(*tins), ours_fn(*ains)
    np.testing.assert_allclose(arr(out), tout.detach().numpy(), rtol=tol, atol=tol)
    g = rng.standard_normal(tuple(tout.shape)).astype(arrays[0].dtype)
    tg = torch.autograd.grad(tout, tins, torch.tensor(g))
    og = ag.autograd.grad(out, ains, ag.tensor(g))
    for a, b in zip(og, tg):
        np.testing.assert_allclose(arr(a), b.numpy(), rtol=tol, atol=tol)


TORCH_COMBOS = [c + (4,) for c in COMBOS] + [c + (5,) for c in COMBOS if c[0] != "bicubic"]


@needs_torch
@pytest.mark.parametrize("mode,padding,align,ndim", TORCH_COMBOS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_grid_sample_against_pytorch(mode, padding, align, ndim, dtype):
    tol = 1e-9 if dtype == "float64" else 3e-4
    for trial in range(2):
        spatial = [int(v) for v in rng.integers(1, 6, size=ndim - 2)]
        out_sp = [int(v) for v in rng.integers(1, 5, size=ndim - 2)]
        x = rng.standard_normal([2, 3] + spatial).astype(dtype)
        grid = rng.uniform(-1.4, 1.4, size=[2] + out_sp + [ndim - 2]).astype(dtype)
        if trial == 1:
            grid = np.round(grid * 2) / 2  # exactly on borders and pixel centres
        _compare(lambda a, g: F.grid_sample(a, g, mode=mode, padding_mode=padding,
                                            align_corners=align),
                 lambda a, g: torch.nn.functional.grid_sample(a, g, mode=mode,
                                                              padding_mode=padding,
                                                              align_corners=align),
                 [x, grid], tol)


@needs_torch
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 1, 3), (2, 2, 3, 4, 5), (2, 1, 1, 2, 3)])
@pytest.mark.parametrize("align", [False, True])
def test_affine_grid_against_pytorch(size, align):
    theta = rng.standard_normal((2, len(size) - 2, len(size) - 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unit-size warning, from both
        _compare(lambda t: F.affine_grid(t, size, align_corners=align),
                 lambda t: torch.nn.functional.affine_grid(t, size, align_corners=align),
                 [theta], 1e-12)


@needs_torch
def test_shuffles_against_pytorch():
    x = rng.standard_normal((2, 12, 4, 6))
    for ours, theirs in [(lambda a: F.channel_shuffle(a, 3),
                          lambda a: torch.nn.functional.channel_shuffle(a, 3)),
                         (lambda a: F.pixel_unshuffle(a, 2),
                          lambda a: torch.nn.functional.pixel_unshuffle(a, 2)),
                         (lambda a: F.pixel_shuffle(a, 2),
                          lambda a: torch.nn.functional.pixel_shuffle(a, 2))]:
        _compare(ours, theirs, [x], 0)
    assert repr(nn.ChannelShuffle(2)) == repr(torch.nn.ChannelShuffle(2))
    assert repr(nn.PixelUnshuffle(3)) == repr(torch.nn.PixelUnshuffle(3))
