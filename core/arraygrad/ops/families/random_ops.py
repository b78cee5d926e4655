"""Random sampling ops: ``normal``, ``bernoulli``, ``poisson``, ``multinomial`` and the
in-place fillers ``uniform_``, ``normal_``, ``random_``, ``bernoulli_``, ``exponential_``,
``cauchy_``, ``log_normal_``, ``geometric_``.

Every draw comes from the backend's native generator (``Backend.make_generator``) through
``arraygrad.random.generator_for``: the default generator of the tensor's device (seeded by
``manual_seed``), or the ``generator=`` given. The backend draws only standard uniform,
standard normal and integer samples; every other distribution is a transform of those
written with ``backend.xp``, computed in float64 where the backend has it.

Sampling is not differentiable, except ``normal`` with tensor ``mean``/``std``: it is
``mean + std * eps`` in Tensor ops (``eps`` a standard normal draw), so gradients (and double
gradients) reach ``mean`` and ``std`` as PyTorch's ``NormalBackward``.
"""

from __future__ import annotations

import math
import weakref
from typing import TYPE_CHECKING, Any, Callable

from arraygrad.allocation_errors import allocating
from arraygrad.ops.kernel_dtypes import check_kernel_dtype
from arraygrad import dtypes as _dt
from arraygrad.ops.rule import fast_paths
from arraygrad.ops.value_checks import any_true
from arraygrad.random import generator_for
from arraygrad.tensor import Tensor, wrap

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend
    from arraygrad.device import DeviceLike
    from arraygrad.random import Generator

__all__ = ["normal", "bernoulli", "poisson", "multinomial"]


# -- helpers ------------------------------------------------------------------------------------

_WORK_DTYPES: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def _work_dtype(backend: Backend) -> Any:
    """The native float dtype transforms are computed in: float64 where the backend has it
    (found once per backend: a sampling loop asks per draw; weakly held, so a compile's
    recording backend is not kept alive by it)."""
    native = _WORK_DTYPES.get(backend)
    if native is None:
        d = _dt.float64 if _dt.float64 in backend.supported_dtypes() else _dt.float32
        native = _WORK_DTYPES[backend] = backend.native_dtype(d)
    return native


def _uniform(backend: Backend, shape: tuple[int, ...], generator: Generator | None) -> Any:
    return generator_for(backend, generator).uniform(shape, _work_dtype(backend))


def _std_normal(backend: Backend, shape: tuple[int, ...], generator: Generator | None) -> Any:
    return generator_for(backend, generator).normal(shape, _work_dtype(backend))


def _standard(backend: Backend, shape: tuple[int, ...], d: _dt.dtype,
              generator: Generator | None, normal: bool) -> Any:
    """Standard uniform (or normal) samples drawn in ``d``'s native dtype, exactly as
    ``rand``/``randn`` draw them, then widened to the work dtype: so ``empty(n).uniform_()``,
    ``empty(n).normal_()`` and ``normal(zeros(n), ones(n))`` equal ``rand(n)``/``randn(n)``
    from one seed, as in PyTorch (nn.init and distributions use the fillers)."""
    gen = generator_for(backend, generator)
    native = backend.native_dtype(d)
    drawn = gen.normal(shape, native) if normal else gen.uniform(shape, native)
    return backend.xp.astype(drawn, _work_dtype(backend))


def _like(t: Tensor, data: Any) -> Tensor:
    """``data`` (native, any dtype) cast to ``t``'s dtype, as a new tensor on ``t``'s backend."""
    backend = t._backend
    return wrap(backend.xp.astype(data, t._data.dtype), backend)



def _require_floating(t: Tensor, op: str) -> None:
    if not t.dtype.is_floating_point:
        raise NotImplementedError(f"{op}: not implemented for '{_dt.scalar_type_name(t.dtype)}' "
                                  f"(a floating point tensor is needed, got {t.dtype!r})")


def _number(value: Any, op: str, name: str) -> float:
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise RuntimeError(f"{op}: {name} must be a number or a one-element tensor, got "
                               f"shape {list(value.shape)}")
        return float(value.item())
    if not isinstance(value, (int, float)):
        raise TypeError(f"{op}(): argument '{name}' must be a number, not "
                        f"{type(value).__name__}")
    return float(value)


# -- in-place fillers (each computes the out-of-place result; the seam writes it) -----------------

_UNSET: Any = object()  # an argument not given (``random_(to)`` differs from ``random_(from, None)``)


def _from_keyword(from_: Any, kwargs: dict[str, Any], op: str) -> Any:
    """``from_``, or the ``from=`` keyword PyTorch's signature names (``from`` is a Python
    keyword: ``t.uniform_(**{"from": 2, "to": 5})``); anything else is refused."""
    if "from" in kwargs:
        if from_ is not _UNSET:
            raise TypeError(f"{op}() got multiple values for argument 'from'")
        from_ = kwargs.pop("from")
    if kwargs:
        raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    return from_


def _uniform_(self: Tensor, from_: Any = _UNSET, to: Any = 1, *,
              generator: Generator | None = None, **kwargs: Any) -> Tensor:
    """Samples of U[from, to) with ``self``'s shape and dtype."""
    from_ = _from_keyword(from_, kwargs, "uniform_")
    from_ = 0 if from_ is _UNSET else from_
    _require_floating(self, "uniform_")
    lo, hi = _number(from_, "uniform_", "from"), _number(to, "uniform_", "to")
    if lo > hi:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={lo:g} > to={hi:g}")
    u = _standard(self._backend, tuple(self.shape), self.dtype, generator, normal=False)
    return _like(self, lo + (hi - lo) * u)


def _normal_(self: Tensor, mean: Any = 0, std: Any = 1, *,
             generator: Generator | None = None) -> Tensor:
    """Samples of N(mean, std**2) with ``self``'s shape and dtype."""
    _require_floating(self, "normal_")
    m, s = _number(mean, "normal_", "mean"), _number(std, "normal_", "std")
    if not s >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {s:g}")
    z = _standard(self._backend, tuple(self.shape), self.dtype, generator, normal=True)
    return _like(self, m + s * z)


def _exponential_(self: Tensor, lambd: Any = 1.0, *,
                  generator: Generator | None = None) -> Tensor:
    """Samples of Exp(lambd) (density ``lambd * exp(-lambd * x)``), by inversion."""
    _require_floating(self, "exponential_")
    rate = _number(lambd, "exponential_", "lambd")
    if not rate > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={rate:g}")
    xp = self._backend.xp
    u = _uniform(self._backend, tuple(self.shape), generator)
    return _like(self, -xp.log1p(-u) / rate)  # u < 1: log1p(-u) is finite


def _cauchy_(self: Tensor, median: Any = 0, sigma: Any = 1, *,
             generator: Generator | None = None) -> Tensor:
    """Samples of the Cauchy distribution ``median + sigma * tan(pi * (u - 1/2))``."""
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {self.dtype}")
    m, s = _number(median, "cauchy_", "median"), _number(sigma, "cauchy_", "sigma")
    if not s > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={s:g}")
    xp = self._backend.xp
    u = _uniform(self._backend, tuple(self.shape), generator)
    return _like(self, m + s * xp.tan(math.pi * (u - 0.5)))


def _log_normal_(self: Tensor, mean: Any = 1, std: Any = 2, *,
                 generator: Generator | None = None) -> Tensor:
    """Samples whose logarithm is N(mean, std**2)."""
    _require_floating(self, "log_normal_")
    m, s = _number(mean, "log_normal_", "mean"), _number(std, "log_normal_", "std")
    if not s > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={s:g}")
    z = _std_normal(self._backend, tuple(self.shape), generator)
    return _like(self, self._backend.xp.exp(m + s * z))


def _geometric_(self: Tensor, p: Any, *, generator: Generator | None = None) -> Tensor:
    """The number of Bernoulli(p) trials up to the first success (1, 2, ...), by inversion:
    ``ceil(log(u) / log(1 - p))``."""
    prob = _number(p, "geometric_", "p")
    if not 0.0 < prob < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={prob:g}")
    xp = self._backend.xp
    u = 1.0 - _uniform(self._backend, tuple(self.shape), generator)  # in (0, 1]: log is finite
    return _like(self, xp.maximum(xp.ceil(xp.log(u) / math.log1p(-prob)), 1.0))


def _random_range_default(d: _dt.dtype) -> int:
    """The exclusive upper bound of ``random_()``: every integer the dtype holds exactly."""
    if d is _dt.bool:
        return 2
    if d.is_floating_point:  # [0, 2**mantissa] as PyTorch
        return (1 << {"float16": 11, "float32": 24, "float64": 53}[d.name]) + 1
    return (1 << (8 * d.itemsize - 1)) - 1


def _random_(self: Tensor, from_: Any = _UNSET, to: Any = _UNSET, *,
             generator: Generator | None = None, **kwargs: Any) -> Tensor:
    """Integers uniform in ``[from, to)`` (``random_(to)``: ``[0, to)``; ``random_()`` or
    ``to=None``: up to every integer the dtype represents exactly), in ``self``'s dtype."""
    named_from = "from" in kwargs
    from_ = _from_keyword(from_, kwargs, "random_")
    if to is _UNSET:
        if named_from:  # PyTorch has no random_(from) form
            raise TypeError("random_() missing required argument 'to' (with 'from')")
        from_, to = 0, (None if from_ is _UNSET else from_)
    lo = 0 if from_ is _UNSET else int(from_)
    hi = _random_range_default(self.dtype) if to is None else int(to)
    if lo >= hi:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} "
                           f">= to={hi}")
    backend = self._backend
    data = generator_for(backend, generator).integers(
        lo, hi, tuple(self.shape), backend.native_dtype(_dt.int64))
    return _like(self, data)


def _probabilities(p: Any, like: Tensor, op: str) -> Any:
    """``p`` (a number or a tensor broadcastable to ``like``) as a native work-dtype array,
    checked to lie in [0, 1]."""
    backend = like._backend
    xp = backend.xp
    if isinstance(p, Tensor):
        if p._backend is not backend:
            raise RuntimeError(f"{op}: p is on {p.device} but the tensor is on {like.device}")
        arr = xp.astype(p._data, _work_dtype(backend))
        if any_true(backend, xp.logical_not((arr >= 0) & (arr <= 1))):
            raise RuntimeError(f"{op}: Expected p_in >= 0 && p_in <= 1 to be true, but got "
                               "false (some probability lies outside [0, 1])")
        return arr
    value = _number(p, op, "p")
    if not 0.0 <= value <= 1.0:
        raise RuntimeError(f"{op} expects p to be in [0, 1], but got p={value:g}")
    return value


def _bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Generator | None = None) -> Tensor:
    """0/1 draws with success probability ``p`` (a number or a tensor), in ``self``'s dtype."""
    prob = _probabilities(p, self, "bernoulli_")
    u = _uniform(self._backend, tuple(self.shape), generator)
    return _like(self, u < prob)


# -- functions ------------------------------------------------------------------------------------

def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Generator | None = None,
           dtype: _dt.dtype | None = None, device: DeviceLike | None = None,
           requires_grad: bool = False) -> Tensor:
    """Normal samples, as ``torch.normal``'s overloads.

    - ``normal(mean: Tensor, std: Tensor | float = 1.0)`` and ``normal(mean: float,
      std: Tensor)``: one sample per element of the broadcast shape, differentiable in the
      tensor arguments (``mean + std * eps``);
    - ``normal(mean: float, std: float, size)``: ``size`` samples (``dtype``, ``device`` and
      ``requires_grad`` as the factories).
    """
    from arraygrad import creation

    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: with a "
                            "number mean and std, 'size' is required")
        m, s = _number(mean, "normal", "mean"), _number(std, "normal", "std")
        if not s >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {s:g}")
        eps = creation.randn(*(size if isinstance(size, (tuple, list)) else (size,)),
                             generator=generator, dtype=dtype, device=device)
        sample = (eps * s + m).detach()
        return sample.requires_grad_(True) if requires_grad else sample
    if size is not None:
        raise TypeError("normal(): 'size' is only accepted with a number mean and std")
    tensors = [t for t in (mean, std) if isinstance(t, Tensor)]
    backend = tensors[0]._backend
    for t in tensors:
        if t._backend is not backend:
            raise RuntimeError(f"normal: mean and std must be on the same device, got "
                               f"{tensors[0].device} and {t.device}")
        if not t.dtype.is_floating_point:
            raise NotImplementedError(f"normal: not implemented for '{_dt.scalar_type_name(t.dtype)}' "
                                      f"(mean and std must be floating, got {t.dtype!r})")
    xp = backend.xp
    if isinstance(std, Tensor):
        if any_true(backend, xp.logical_not(std._data >= 0)):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif not _number(std, "normal", "std") >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    try:
        shape = tuple(xp.broadcast_shapes(*(tuple(t._data.shape) for t in tensors)))
    except ValueError:
        raise RuntimeError(f"normal: mean of shape {list(getattr(mean, 'shape', []))} and std "
                           f"of shape {list(getattr(std, 'shape', []))} do not broadcast") from None
    result_dtype = _dt.result_type(mean, std)
    eps = wrap(xp.astype(_standard(backend, shape, result_dtype, generator, normal=True),
                         backend.native_dtype(result_dtype)), backend)
    result: Tensor = mean + std * eps
    return result


def bernoulli(input: Tensor, p: Any = None, *, generator: Generator | None = None) -> Tensor:
    """0/1 draws with success probabilities ``input`` (or the number ``p``), in ``input``'s
    dtype and shape; not differentiable."""
    check_kernel_dtype("bernoulli", input)
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    prob = _probabilities(input if p is None else p, input,
                          "bernoulli" if p is None else "bernoulli_")
    u = _uniform(input._backend, tuple(input.shape), generator)
    return _like(input, u < prob)


# log(k!) for k < 10, where Stirling's series below is not yet accurate enough
_LOG_FACTORIAL = tuple(math.lgamma(k + 1.0) for k in range(10))


def _log_factorial(xp: Any, k: Any, work: Any) -> Any:
    """``log(k!)`` of a float array of non-negative integers ``k``: a table below 10, Stirling's
    series with three corrections above (error below 1e-12 there)."""
    x = k + 1.0
    stirling = ((x - 0.5) * xp.log(x) - x + 0.5 * math.log(2 * math.pi) + 1.0 / (12.0 * x)
                - 1.0 / (360.0 * x ** 3) + 1.0 / (1260.0 * x ** 5))
    table = xp.asarray(_LOG_FACTORIAL, dtype=work)
    small = xp.take(table, xp.astype(xp.clip(k, 0, 9), xp.int64))
    return xp.where(k < 10, small, stirling)


def _poisson_small(xp: Any, draw: Callable[[], Any], rate: Any) -> Any:
    """Poisson draws by inversion of the CDF (for rates below 10: ~rate + 1 steps)."""
    u = draw()
    k = xp.zeros_like(rate)
    term = xp.exp(-rate)
    cdf = term
    for _ in range(200):  # P(X > 200) is below 1e-100 for rate < 10
        more = u > cdf
        if not bool(xp.any(more)):
            break
        k = xp.where(more, k + 1.0, k)
        term = xp.where(more, term * rate / xp.maximum(k, 1.0), term)
        cdf = xp.where(more, cdf + term, cdf)
    return k


def _poisson_large(xp: Any, draw: Callable[[], Any], rate: Any, work: Any) -> Any:
    """Poisson draws by Hörmann's transformed rejection (PTRS), for rates of 10 and more."""
    slam = xp.sqrt(rate)
    loglam = xp.log(rate)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    out = xp.zeros_like(rate)
    pending = xp.ones(rate.shape, dtype=xp.bool)
    while bool(xp.any(pending)):
        u = draw() - 0.5
        v = draw()
        us = 0.5 - xp.abs(u)
        k = xp.floor((2.0 * a / us + b) * u + rate + 0.43)
        quick = (us >= 0.07) & (v <= vr)
        reject = (k < 0) | ((us < 0.013) & (v > us))
        kk = xp.clip(k, 0.0, None)
        lhs = xp.log(v) + xp.log(invalpha) - xp.log(a / (us * us) + b)
        rhs = -rate + kk * loglam - _log_factorial(xp, kk, work)
        accept = pending & (quick | (xp.logical_not(reject) & (lhs <= rhs)))
        out = xp.where(accept, kk, out)
        pending = pending & xp.logical_not(accept)
    return out


def poisson(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Poisson draws with rates ``input`` (floating, non-negative), in ``input``'s dtype;
    not differentiable."""
    if not isinstance(input, Tensor):
        raise TypeError(f"poisson(): argument 'input' must be Tensor, not {type(input).__name__}")
    _require_floating(input, "poisson")
    backend = input._backend
    xp = backend.xp
    work = _work_dtype(backend)
    rate = xp.astype(input._data, work)
    if any_true(backend, xp.logical_not(rate >= 0)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    shape = tuple(input.shape)
    if not backend.holds_data:  # meta: no rates to draw from (the samplers loop on values)
        return _like(input, xp.empty_like(rate))

    def draw() -> Any:
        return _uniform(backend, shape, generator)

    small = rate < 10.0
    result = xp.zeros_like(rate)
    if bool(xp.any(small)):
        result = xp.where(small, _poisson_small(xp, draw, xp.where(small, rate, 0.0)), result)
    if not bool(xp.all(small)):
        big = _poisson_large(xp, draw, xp.where(small, 10.0, rate), work)
        result = xp.where(small, result, big)
    return _like(input, result)


@allocating("multinomial")
def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> Tensor:
    """Category indices (int64) drawn from the rows of ``input`` (non-negative weights, 1-D
    or 2-D), with or without replacement, as ``torch.multinomial``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got shape "
                           f"{list(input.shape)}")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype!r}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("multinomial: cannot sample n_sample <= 0 samples")
    categories = int(input.shape[-1])
    if not replacement and n > categories:
        raise RuntimeError(f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
                           f"without replacement ({n} > {categories})")
    backend = input._backend
    xp = backend.xp
    work = _work_dtype(backend)
    w = xp.astype(input._data, work)
    if input.ndim == 1:
        w = w[None, ...]
    # one read of a sufficient test (a sampling loop draws one row per call): the smallest
    # weight not negative (NaN fails it) and every row's total positive and finite (an inf
    # weight makes it inf). Only when that fails are the two exact checks made (finite
    # weights summing past the largest float pass them), and which one failed asked
    total = xp.sum(w, axis=-1)
    if not categories or not any_true(
            backend, (xp.min(w) >= 0) & xp.all((total > 0) & (total < math.inf))):
        invalid = xp.logical_not((w >= 0) & xp.isfinite(w))
        if any_true(backend, invalid):
            raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` "
                               "or element < 0")
        if any_true(backend, xp.any(total <= 0)):
            raise RuntimeError("multinomial: invalid multinomial distribution (sum of "
                               "probabilities <= 0)")
    rows = int(w.shape[0])
    if replacement:
        cdf = xp.cumulative_sum(w, axis=-1)
        u = _uniform(backend, (rows, n), generator) * cdf[:, -1:]
        # category j is drawn when cdf[j-1] <= u < cdf[j] (never a zero-weight one); a u
        # rounded up to the total counts every category: the last one (the count is never
        # negative, so a minimum is the clip)
        idx = xp.sum(xp.astype(cdf[:, None, :] <= u[:, :, None], xp.int64), axis=-1)
        idx = xp.minimum(idx, xp.asarray(categories - 1, dtype=idx.dtype))
    else:
        # Efraimidis-Spirakis: the n largest log(u) / w are a weighted sample without
        # replacement. Weight 0 gives -inf: drawn only once the positive weights are used up,
        # then in index order (the stable sort), as PyTorch's CPU kernel does
        u = _uniform(backend, (rows, categories), generator)
        keys = xp.where(w > 0, xp.log(u) / xp.where(w > 0, w, 1.0), -math.inf)
        if n == 1 and fast_paths.on:  # the stable sort's first: the first largest key
            idx = xp.argmax(keys, axis=-1, keepdims=True)
        else:
            idx = xp.argsort(keys, axis=-1, descending=True, stable=True)[:, :n]
    idx = xp.astype(idx, backend.native_dtype(_dt.int64))
    if input.ndim == 1:
        idx = idx[0, ...]
    return wrap(idx, backend)


FUNCTIONS = {"normal": normal, "bernoulli": bernoulli, "poisson": poisson,
             "multinomial": multinomial}
METHODS = {"bernoulli": bernoulli, "multinomial": multinomial}
INPLACE = {"uniform_": _uniform_, "normal_": _normal_,
           "random_": _random_, "bernoulli_": _bernoulli_,
           "exponential_": _exponential_, "cauchy_": _cauchy_, "log_normal_": _log_normal_,
           "geometric_": _geometric_}
