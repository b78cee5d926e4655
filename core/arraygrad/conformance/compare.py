"""Comparing outputs of a case on two backends, with arraygrad itself (no NumPy in the core)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["flat_outputs", "assert_close", "tolerances"]


def tolerances(dtype: Any, rtol: float = 1e-7, atol: float = 1e-9) -> tuple[float, float]:
    """The suite's ``(rtol, atol)`` for results in ``dtype``.

    ``rtol``/``atol`` are the float64 ones (a case's own, or the suite's defaults); float32
    results get at least 1e-3 relative and 1e3 times ``atol``, float16 1e-2 and 1e6 times.
    Exact float comparisons have no place in the suite: a device's ``pow`` may be a few
    ulp off (CuPy gives ``17.999999999999996`` where NumPy gives ``18.0``).
    """
    import arraygrad as ag

    if dtype is ag.float64:
        return rtol, atol
    if dtype is ag.float32:
        return max(rtol, 1e-3), atol * 1e3
    return max(rtol, 1e-2), atol * 1e6


def flat_outputs(out: Tensor) -> list[Any]:
    """A case's result as a flat list of tensors (tuples, named tuples and lists flattened)."""
    from arraygrad.tensor import Tensor

    if isinstance(out, Tensor):
        return [out]
    flat = []
    for item in out:
        flat.extend(flat_outputs(item))
    return flat


def assert_close(actual: Any, expected: Any, rtol: float, atol: float,
                 what: str = "output") -> None:
    """Every output of ``actual`` matches ``expected`` (the reference) in shape and value.

    Both are moved to the cpu in float64 or complex128 (or compared exactly for integer and
    bool). An output without values (a meta tensor) is compared by shape and dtype instead.
    """
    import arraygrad as ag

    acts, exps = flat_outputs(actual), flat_outputs(expected)
    assert len(acts) == len(exps), f"{what}: {len(acts)} outputs, reference has {len(exps)}"
    for k, (a, e) in enumerate(zip(acts, exps)):
        assert tuple(a.shape) == tuple(e.shape), \
            f"{what} {k}: shape {tuple(a.shape)}, reference {tuple(e.shape)}"
        if not a._backend.holds_data:
            assert a.dtype is e.dtype, f"{what} {k}: dtype {a.dtype}, reference {e.dtype}"
            continue
        a = a.detach().to("cpu")
        e = e.detach().to("cpu")
        if not (e.dtype.is_floating_point or e.dtype.is_complex):
            same = not a.dtype.is_floating_point and bool((a.to(e.dtype) == e).all())
            assert same, \
                f"{what} {k}: {a.tolist()} != reference {e.tolist()}"
            continue
        wide = ag.complex128 if e.dtype.is_complex else ag.float64
        assert a.dtype.is_complex == e.dtype.is_complex, \
            f"{what} {k}: dtype {a.dtype}, reference {e.dtype}"
        a, e = a.to(wide), e.to(wide)
        err = (a - e).abs()
        bad = err > atol + rtol * e.abs()
        if bool(bad.any()):
            raise AssertionError(
                f"{what} {k}: {int(bad.sum())} of {e.numel()} elements off; max abs error "
                f"{float(err.max()):.3g} (rtol={rtol:g}, atol={atol:g})\n"
                f"  got:       {a.tolist()}\n  reference: {e.tolist()}")
