"""Numerical calculus on samples: ``gradient`` (central differences, one- or second-order
edges, even or given spacing), ``trapezoid``/``trapz`` and ``cumulative_trapezoid``, with
PyTorch's (NumPy's) formulas.

Composites of slicing and arithmetic: differentiable in the samples (and in given
coordinates), with double backward.
"""

from __future__ import annotations

from numbers import Number
from typing import Any, Callable

import arraygrad as ag
from arraygrad.tensor import Tensor, _wrap_dim

__all__ = ["gradient", "trapezoid", "trapz", "cumulative_trapezoid", "FUNCTIONS"]


def _part(x: Tensor, dim: int, start: int, stop: int | None) -> Tensor:
    """``x[start:stop]`` along ``dim``."""
    return x[(slice(None),) * dim + (slice(start, stop),)]


def _along(c: Tensor, dim: int, ndim: int) -> Tensor:
    """1-D ``c`` shaped to broadcast along dimension ``dim`` of an ``ndim``-D tensor."""
    shape = [1] * ndim
    shape[dim] = -1
    return c.reshape(shape)


def _floating(x: Tensor) -> Tensor:
    return x if x.dtype.is_floating_point else x.to(ag.get_default_dtype())


def _uniform(f: Tensor, d: int, h: Any, edge_order: int) -> Tensor:
    n = f.shape[d]
    inner = (_part(f, d, 2, None) - _part(f, d, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (_part(f, d, 1, 2) - _part(f, d, 0, 1)) / h
        last = (_part(f, d, n - 1, n) - _part(f, d, n - 2, n - 1)) / h
    else:
        first = (-1.5 * _part(f, d, 0, 1) + 2 * _part(f, d, 1, 2) - 0.5 * _part(f, d, 2, 3)) / h
        last = (0.5 * _part(f, d, n - 3, n - 2) - 2 * _part(f, d, n - 2, n - 1)
                + 1.5 * _part(f, d, n - 1, n)) / h
    return ag.cat([first, inner, last], d)


def _coordinates(f: Tensor, d: int, x: Tensor, edge_order: int) -> Tensor:
    n = f.shape[d]
    h = _along(_floating(x).diff(), d, f.ndim)  # h[i] = x[i+1] - x[i]
    hl, hr = _part(h, d, 0, n - 2), _part(h, d, 1, None)
    a = -hr / (hl * (hl + hr))
    b = (hr - hl) / (hl * hr)
    c = hl / (hr * (hl + hr))
    inner = a * _part(f, d, 0, n - 2) + b * _part(f, d, 1, n - 1) + c * _part(f, d, 2, None)
    if edge_order == 1:
        first = (_part(f, d, 1, 2) - _part(f, d, 0, 1)) / _part(h, d, 0, 1)
        last = (_part(f, d, n - 1, n) - _part(f, d, n - 2, n - 1)) / _part(h, d, n - 2, n - 1)
    else:
        d1, d2 = _part(h, d, 0, 1), _part(h, d, 1, 2)
        first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * _part(f, d, 0, 1)
                 + (d1 + d2) / (d1 * d2) * _part(f, d, 1, 2)
                 - d1 / (d2 * (d1 + d2)) * _part(f, d, 2, 3))
        d1, d2 = _part(h, d, n - 3, n - 2), _part(h, d, n - 2, n - 1)
        last = (d2 / (d1 * (d1 + d2)) * _part(f, d, n - 3, n - 2)
                - (d2 + d1) / (d1 * d2) * _part(f, d, n - 2, n - 1)
                + (2 * d2 + d1) / (d2 * (d1 + d2)) * _part(f, d, n - 1, n))
    return ag.cat([first, inner, last], d)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None,
             edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative estimate of the samples in ``input`` along each of ``dim`` (all
    dimensions by default): central differences inside, one-sided differences of order
    ``edge_order`` (1 or 2) at the ends. ``spacing``: one number for all, one per dimension,
    or 1-D coordinate tensors."""
    if not isinstance(input, Tensor):
        raise TypeError(f"gradient(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if input.ndim == 0:
        return ()
    if dim is None:
        dims = list(range(input.ndim))
    else:
        raw = [dim] if isinstance(dim, int) else list(dim)
        dims = [_wrap_dim(d, input.ndim, "gradient") for d in raw]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if isinstance(spacing, (Number, Tensor)) and not (isinstance(spacing, Tensor)
                                                       and spacing.ndim > 0):
        steps: list[Any] = [spacing] * len(dims)
    else:
        steps = list(spacing)
        if len(steps) == 1 and len(dims) > 1 and not isinstance(steps[0], Tensor):
            steps = steps * len(dims)
        if len(steps) != len(dims):
            where = ("since dim argument was not given" if dim is None else
                     f"to match the length of 'dim' = {len(dims)}")
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or "
                               f"a list of length equal to 'self.dim() = {input.ndim}', {where}, "
                               f"but got a list of length {len(steps)}")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    f = _floating(input)
    out = []
    for d, step in zip(dims, steps):
        if isinstance(step, Tensor) and step.ndim == 1:
            if step.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each coordinate tensor to have "
                                   f"{input.shape[d]} values along dimension {d}, got "
                                   f"{step.shape[0]}")
            out.append(_coordinates(f, d, step, edge_order))
        else:
            out.append(_uniform(f, d, step.item() if isinstance(step, Tensor) else step,
                                edge_order))
    return tuple(out)


def _samples(op: str, y: Any, x: Any, dx: Any) -> Tensor:
    if not isinstance(y, Tensor):
        raise TypeError(f"{op}(): argument 'y' (position 1) must be Tensor, not "
                        f"{type(y).__name__}")
    if x is not None and dx is not None:
        raise TypeError(f"{op}() received an invalid combination of arguments: both x and dx")
    return y


def _spacing(op: str, y: Tensor, x: Tensor, d: int) -> Tensor:
    """The gaps between the sample points ``x`` (1-D, or broadcasting with ``y``) along ``d``."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[d]:
            raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
        return _along(x.diff(), d, y.ndim)
    return x.diff(dim=d)


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: the integral of the samples ``y`` at the points
    ``x`` (or evenly spaced by ``dx``, default 1)."""
    _samples("trapezoid", y, x, dx)
    d = _wrap_dim(dim, y.ndim, "trapezoid")
    if y.shape[d] == 0:
        shape = tuple(n for i, n in enumerate(y.shape) if i != d)
        return ag.zeros(shape, dtype=_floating(y).dtype, device=y.device)
    n = y.shape[d]
    if x is None:
        step = 1 if dx is None else dx
        ends = y.select(d, 0) + y.select(d, -1)
        return (y.sum(d) - ends * 0.5) * step
    pairs = _part(y, d, 1, None) + _part(y, d, 0, n - 1)
    return (_spacing("trapezoid", y, x, d) * pairs).sum(d) / 2.0


def trapz(y: Tensor, x: Tensor | None = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """``trapezoid``'s older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx: Any = None,
                         dim: int = -1) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one fewer value than samples)."""
    _samples("cumulative_trapezoid", y, x, dx)
    d = _wrap_dim(dim, y.ndim, "cumulative_trapezoid")
    n = y.shape[d]
    if n == 0:
        return _floating(y).clone()
    pairs = _part(y, d, 1, None) + _part(y, d, 0, n - 1)
    if x is None:
        areas = (1 if dx is None else dx) / 2.0 * pairs
    else:
        areas = _spacing("cumulative_trapezoid", y, x, d) * pairs / 2.0
    return areas.cumsum(d)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "gradient": gradient, "trapezoid": trapezoid, "trapz": trapz,
    "cumulative_trapezoid": cumulative_trapezoid,
}
