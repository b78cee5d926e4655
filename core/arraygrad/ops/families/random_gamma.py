"""Gamma-based sampling: ``_standard_gamma`` (Marsaglia and Tsang's method, differentiable in
the concentration by implicit reparameterisation), ``_sample_dirichlet``, the reparameterisation
gradients ``_standard_gamma_grad`` and ``_dirichlet_grad`` (PyTorch's private names, which its
distributions use), and the binomial sampler ``binomial_data`` (Devroye's recursion on beta
order statistics, exact for any count).

Draws come from the backend's generator (``random.generator_for``: the device's default
generator, or ``generator=``), in float64 where the backend has it, and only standard
uniform and normal draws are asked of it: everything else is ``xp`` arithmetic.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.ops._special import reparam as _reparam
from arraygrad.ops._special._common import quiet
from arraygrad.ops.casting import to_float_data
from arraygrad.ops.families._special_op import check_tensor
from arraygrad.ops.families.dtype_queries import finfo
from arraygrad.ops.rule import defop
from arraygrad.random import generator_for
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.random import Generator

__all__ = ["FUNCTIONS", "gamma_data", "binomial_data"]

_BINOMIAL_DIRECT = 16  # counts up to this are summed Bernoulli draws


def _work(backend: Backend) -> Any:
    d = _dt.float64 if _dt.float64 in backend.supported_dtypes() else _dt.float32
    return backend.native_dtype(d)


def gamma_data(backend: Backend, alpha: Any, generator: Generator | None = None) -> Any:
    """Standard Gamma(alpha) samples (native, the work dtype) for a native ``alpha`` array.

    Marsaglia and Tsang: for a >= 1, ``d (1 + c z)^3`` with ``d = a - 1/3``, ``c = 1/sqrt(9d)``,
    z standard normal, accepted when ``log u < z^2/2 + d - d v + d log v``; for a < 1, a
    Gamma(a + 1) sample times ``u^(1/a)`` (computed in logs: it underflows for tiny a).
    """
    xp = backend.xp
    native = generator_for(backend, generator)
    work = _work(backend)
    a = xp.astype(alpha, work)
    shape = tuple(a.shape)
    with quiet(xp):
        boost = a < 1.0
        a1 = xp.where(boost, a + 1.0, a)
        d = a1 - 1.0 / 3.0
        c = 1.0 / xp.sqrt(9.0 * d)
        out = xp.zeros_like(a)
        pending = xp.isfinite(a) & (a > 0)
        while bool(xp.any(pending)):
            z = native.normal(shape, work)
            u = native.uniform(shape, work)
            v = (1.0 + c * z) ** 3
            safe_v = xp.where(v > 0, v, xp.ones_like(v))
            accept = pending & (v > 0) & (xp.log(u) < 0.5 * z * z + d - d * safe_v
                                           + d * xp.log(safe_v))
            out = xp.where(accept, d * safe_v, out)
            pending = pending & ~accept
        u = native.uniform(shape, work)
        log_scale = xp.log(u) / xp.where(boost, a, xp.ones_like(a))
        out = xp.where(boost, xp.exp(xp.log(out) + log_scale), out)
        out = xp.where(a == 0, xp.zeros_like(a), out)
        return xp.where(xp.isfinite(a) & (a >= 0), out, xp.full_like(a, math.nan))


def _standard_gamma_grad(input: Tensor, output: Tensor) -> Tensor:
    """``d output / d input`` of ``output = _standard_gamma(input)`` at fixed uniform
    (implicit reparameterisation), elementwise; no graph."""
    check_tensor("_standard_gamma_grad", input)
    backend = input._backend
    return wrap(_reparam.gamma_grad(backend.xp, to_float_data(input), output._data), backend)


STANDARD_GAMMA = defop("StandardGammaBackward0", saves=("self", "result"),
                       vjp=(lambda g, n: g * _standard_gamma_grad(n.self, n.result),))


def _standard_gamma(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Standard Gamma(``input``) samples, one per element, differentiable in ``input``
    (implicit reparameterisation: ``StandardGammaBackward0``). Results are at least the
    dtype's tiny (as PyTorch's distributions clamp them)."""
    check_tensor("_standard_gamma", input)
    backend = input._backend
    xp = backend.xp
    alpha = to_float_data(input)
    data = xp.astype(gamma_data(backend, alpha, generator), alpha.dtype)
    tiny = finfo(input.dtype if input.dtype.is_floating_point
                     else _dt.get_default_dtype()).tiny
    data = xp.where(data < tiny, xp.full_like(data, tiny), data)
    return STANDARD_GAMMA.record(data, backend, (input,))


def _sample_dirichlet(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Dirichlet(``input``) samples along the last dim (normalised Gamma draws); no graph."""
    check_tensor("_sample_dirichlet", input)
    backend = input._backend
    xp = backend.xp
    alpha = to_float_data(input)
    g = gamma_data(backend, alpha, generator)
    with quiet(xp):
        x = g / xp.sum(g, axis=-1, keepdims=True)
    tiny = finfo(input.dtype if input.dtype.is_floating_point
                     else _dt.get_default_dtype()).tiny
    x = xp.astype(x, alpha.dtype)
    return wrap(xp.where(x < tiny, xp.full_like(x, tiny), x), backend)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """``g_i = (d x_i / d alpha_i) / (1 - x_i)`` for a Dirichlet sample's component x_i (its
    marginal a Beta(alpha_i, total_i - alpha_i), the other concentrations held fixed), so that
    ``d x_j / d alpha_i = g_i (delta_ij - x_j)``; exact, where PyTorch's approximates; no
    graph."""
    for i, t in enumerate((x, alpha, total)):
        check_tensor("_dirichlet_grad", t, i + 1)
    backend = x._backend
    out = _reparam.beta_grad(backend.xp, x._data, alpha._data, total._data)
    return wrap(out, backend)


def binomial_data(backend: Backend, count: Any, prob: Any,
                  generator: Generator | None = None) -> Any:
    """Binomial(count, prob) samples (native, the work dtype) for native arrays broadcast
    together; count a non-negative integer value, prob in [0, 1].

    Devroye's recursion: while a lane's count n is large, the i-th smallest of n uniforms
    (i = (n+1)//2) is a Beta(i, n+1-i) draw X; if X < p, those i successes are counted and the
    rest are n - i draws on [X, 1] (p -> (p - X)/(1 - X)), else the rest are i - 1 draws on
    [0, X] (p -> p/X). At most ``_BINOMIAL_DIRECT`` remain: summed Bernoulli draws.
    """
    xp = backend.xp
    native = generator_for(backend, generator)
    work = _work(backend)
    n, p = xp.broadcast_arrays(xp.astype(count, work), xp.astype(prob, work))
    shape = tuple(n.shape)
    with quiet(xp):
        n = xp.where(n > 0, xp.floor(n), xp.zeros_like(n))
        p = xp.clip(p, 0.0, 1.0)
        total = xp.zeros_like(n)
        while bool(xp.any(n > _BINOMIAL_DIRECT)):
            big = n > _BINOMIAL_DIRECT
            i = xp.floor((n + 1.0) / 2.0)
            a = gamma_data(backend, xp.where(big, i, xp.ones_like(i)), generator)
            b = gamma_data(backend, xp.where(big, n + 1.0 - i, xp.ones_like(i)), generator)
            x = a / (a + b)
            below = x < p
            total = xp.where(big & below, total + i, total)
            new_p = xp.where(below, (p - x) / (1.0 - x), p / x)
            new_n = xp.where(below, n - i, i - 1.0)
            p = xp.where(big, xp.clip(new_p, 0.0, 1.0), p)
            n = xp.where(big, new_n, n)
        for k in range(_BINOMIAL_DIRECT):
            u = native.uniform(shape, work)
            total = total + xp.astype((u < p) & (float(k) < n), work)
    return total


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Binomial(``count``, ``prob``) samples, elementwise (``torch.binomial``): floating
    ``count`` and ``prob`` broadcast together, the result in their dtype, without a graph
    (PyTorch's has no derivative either)."""
    check_tensor("binomial", count)
    check_tensor("binomial", prob)
    for name, t in (("count", count), ("prob", prob)):
        if not t.dtype.is_floating_point:
            raise ValueError(f"binomial only supports floating-point dtypes for {name}, got: "
                             f"{_dt.scalar_type_name(t.dtype)}")
    backend = count._backend
    xp = backend.xp
    c, p = xp.broadcast_arrays(count._data, prob._data)
    data = binomial_data(backend, c, p, generator)
    return wrap(xp.astype(data, count._data.dtype), backend)


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "_standard_gamma": _standard_gamma, "_standard_gamma_grad": _standard_gamma_grad,
    "_sample_dirichlet": _sample_dirichlet, "_dirichlet_grad": _dirichlet_grad,
    "binomial": binomial}
"""Exported as ``arraygrad.<name>`` (PyTorch's private sampling functions)."""
