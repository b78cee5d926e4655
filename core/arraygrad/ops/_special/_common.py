"""Building blocks of the portable special functions: polynomial and Chebyshev evaluation, and
the float64 working precision every formula runs in."""

from __future__ import annotations

import contextlib
from typing import Any, Callable, Sequence

from arraygrad.backends.materialization import materialize_arrays

__all__ = ["horner", "chebyshev", "widened", "quieted", "guarded", "quiet", "until_converged"]

_CHUNK = 16  # iterations between convergence checks


def horner(x: Any, coefficients: Sequence[float]) -> Any:
    """``sum_k c_k x^k`` with ``coefficients`` lowest power first (Horner's scheme)."""
    p = x * 0.0 + coefficients[-1]
    for c in coefficients[-2::-1]:
        p = p * x + c
    return p


def chebyshev(w: Any, coefficients: Sequence[float]) -> Any:
    """``sum_k c_k T_k(w)`` for ``w`` in [-1, 1] (Clenshaw's recurrence)."""
    b1 = w * 0.0
    b2 = b1
    two_w = 2.0 * w
    for c in coefficients[:0:-1]:
        b1, b2 = two_w * b1 - b2 + c, b1
    return w * b1 - b2 + coefficients[0]


def until_converged(xp: Any, step: Any, state: tuple[Any, ...], done: Any,
                    max_steps: int) -> tuple[Any, ...]:
    """Iterate ``step(state, n) -> (*new state, converged mask)`` for n = 1, 2, ..., freezing
    each lane once it has converged (or is ``done`` from the start), until every lane has
    (checked every few steps) or ``max_steps`` have run."""
    n = 0
    while n < max_steps:
        for _ in range(_CHUNK):
            n += 1
            *new, converged = step(state, n)
            state = tuple(xp.where(done, old, fresh) for old, fresh in zip(state, new))
            done = done | converged
        # a lazy library's iterates computed here: the test below, and the next chunk's,
        # then start from values, not from every step since the first
        *computed, done = materialize_arrays(xp, (*state, done))
        state = tuple(computed)
        if bool(xp.all(done)):
            break
    return state


def quiet(xp: Any) -> Any:
    """A context silencing the namespace's floating-point warnings where it has them (NumPy's
    ``errstate``): every branch is computed on every lane, and the unused lanes' overflows and
    zero divisions are not the caller's."""
    errstate = getattr(xp, "errstate", None)
    return errstate(all="ignore") if errstate is not None else contextlib.nullcontext()


def widened(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(xp, *args)`` computed in float64 where the namespace has it (float16 and float32
    array arguments are widened, the result cast back to the first array's dtype: the
    coefficients and the intermediate ranges of these formulas are float64's), with the
    namespace's floating-point warnings off. Arguments without a dtype pass unchanged."""
    def run(xp: Any, *args: Any) -> Any:
        with quiet(xp):
            like = next(a for a in args if hasattr(a, "dtype"))
            wide = getattr(xp, "float64", None)
            if wide is None or like.dtype == wide:
                return fn(xp, *args)
            out = fn(xp, *(xp.astype(a, wide) if hasattr(a, "dtype") else a for a in args))
            if isinstance(out, tuple):
                return tuple(xp.astype(o, like.dtype) for o in out)
            return xp.astype(out, like.dtype)

    run.__name__ = run.__qualname__ = getattr(fn, "__name__", "special")
    run.__doc__ = fn.__doc__
    return run


def quieted(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn(xp, *args)`` with the namespace's floating-point warnings off (no widening: for
    formulas exact enough in the input's own dtype)."""
    def run(xp: Any, *args: Any) -> Any:
        with quiet(xp):
            return fn(xp, *args)

    run.__name__ = run.__qualname__ = getattr(fn, "__name__", "special")
    run.__doc__ = fn.__doc__
    return run


def guarded(xp: Any, mask: Any, x: Any, safe: float) -> Any:
    """``x`` where ``mask``, else ``safe``: keeps the lanes a branch does not answer finite, so
    the branch computed on every lane cannot raise or put NaN into a gradient."""
    return xp.where(mask, x, xp.full_like(x, safe))
