"""Complex cases: the rules that declare complex support, on complex64/complex128 inputs.

Gradients are checked by finite differences of the real and imaginary parts (``gradcheck``
on complex inputs), so these cases check PyTorch's convention on every backend. A case runs
in the complex type of each floating dtype (complex128 for float64); a backend that lacks
that complex dtype (``capabilities["lacks"]``) skips it.
"""

from __future__ import annotations

from typing import Any, Callable

import arraygrad as ag
from arraygrad.conformance.cases._make import case


def _case(op: str, variant: str, fn: Callable[..., Any], shapes: Any,
          kind: str = "complex", **kw: Any) -> Any:
    """A case tagged complex whose float inputs are complex (``kind``)."""
    return case(op, f"complex-{variant}" if variant else "complex", fn, shapes, kind,
                tags=("complex",), **kw)


def _dominant(a: Any) -> Any:
    """``a`` plus 3 on its diagonal: well conditioned."""
    return a + 3 * ag.eye(a.shape[-1], dtype=a.dtype, device=a.device)


CASES = (
    _case("add", "broadcast", lambda a, b: a + b, [(2, 1, 3), (4, 1)]),
    _case("add", "scalar", lambda a: a + (0.5 - 2j), [(2, 3)]),
    _case("sub", "alpha", lambda a, b: ag.sub(a, b, alpha=2.0), [(2, 3), (3,)]),
    _case("mul", "broadcast", lambda a, b: a * b, [(2, 1, 3), (4, 1)]),
    _case("mul", "scalar", lambda a: a * (1.5 + 0.5j), [(2, 3)]),
    case("mul", "real-by-complex", lambda x: x * (1 - 2j), [(2, 3)], tags=("complex",)),
    _case("div", "basic", lambda a, b: a / b, [(2, 3), (3,)], "complex_away"),
    _case("div", "rscalar", lambda a: 2.0 / a, [(2, 3)], "complex_away"),
    _case("neg", "", lambda a: -a, [(2, 3)]),
    _case("pow", "scalar", lambda a: a ** 3, [(2, 3)]),
    _case("pow", "tensor", lambda a, b: a ** b, [(2, 3), (2, 3)], "complex_away"),
    _case("reciprocal", "", ag.reciprocal, [(2, 3)], "complex_away"),
    _case("exp", "", ag.exp, [(2, 3)]),
    _case("log", "", ag.log, [(2, 3)], "complex_away"),
    _case("sqrt", "", ag.sqrt, [(2, 3)], "complex_away"),
    _case("sin", "", ag.sin, [(2, 3)]),
    _case("cos", "", ag.cos, [(2, 3)]),
    _case("tanh", "", ag.tanh, [(2, 3)]),
    _case("sigmoid", "", ag.sigmoid, [(2, 3)]),
    _case("abs", "", ag.abs, [(2, 3)], "complex_away"),
    _case("angle", "", ag.angle, [(2, 3)], "complex_away"),
    _case("sgn", "", ag.sgn, [(2, 3)], "complex_away"),
    _case("conj", "", lambda a: ag.conj(a) * a, [(2, 3)]),
    _case("real", "", lambda a: a.real * 2, [(2, 3)]),
    _case("imag", "", lambda a: a.imag * 2, [(2, 3)]),
    _case("view_as_real", "", lambda a: ag.view_as_real(a) * 2, [(2, 3)]),
    case("view_as_complex", "basic", lambda a: ag.view_as_complex(a) ** 2, [(3, 2)],
         tags=("complex",)),
    case("complex", "broadcast", ag.complex, [(2, 3), (3,)], tags=("complex",)),
    case("polar", "basic", ag.polar, [(2, 3), (2, 3)], low=0.3, high=1.3, tags=("complex",)),
    _case("sum", "dim", lambda a: a.sum(1), [(2, 3)]),
    _case("mean", "", lambda a: a.mean(), [(2, 3)]),
    _case("prod", "dim", lambda a: a.prod(0), [(3, 2)], "complex_away"),
    _case("matmul", "batched", lambda a, b: a @ b, [(2, 2, 3), (3, 2)]),
    _case("mm", "", ag.mm, [(2, 3), (3, 4)]),
    _case("bmm", "", ag.bmm, [(2, 2, 3), (2, 3, 2)]),
    _case("einsum", "", lambda a, b: ag.einsum("ij,kj->ik", a, b), [(2, 3), (4, 3)]),
    _case("reshape", "", lambda a: a.t().reshape(-1)[::2], [(2, 3)]),
    _case("index", "", lambda a: a[[0, 0, 1], 1:], [(2, 3)]),
    _case("cat", "", lambda a, b: ag.cat([a, b], 1), [(2, 3), (2, 1)]),
    _case("stack", "", lambda a, b: ag.stack([a, b], 0), [(2, 3), (2, 3)]),
    _case("where", "", lambda a, b: ag.where(a.real > 0, a, b), [(2, 3), (2, 3)]),
    _case("masked_fill", "", lambda a: a.masked_fill(a.imag > 0, 1j), [(2, 3)]),
    # (diagonally dominant: well conditioned)
    _case("linalg.inv", "", lambda a: ag.linalg.inv(_dominant(a)), [(2, 3, 3)]),
    _case("linalg.det", "", lambda a: ag.linalg.det(_dominant(a)), [(2, 3, 3)]),
    _case("linalg.solve", "", lambda a, b: ag.linalg.solve(_dominant(a), b), [(3, 3), (3, 2)]),
    _case("linalg.vector_norm", "", lambda a: ag.linalg.vector_norm(a, 3, dim=1), [(2, 3)],
          "complex_away"),
    # the Fourier transforms (through the backend's Array API fft extension)
    _case("fft.fft", "padded", lambda a: ag.fft.fft(a, n=6), [(2, 5)]),
    case("fft.fft", "real", lambda a: ag.fft.fft(a, norm="ortho"), [(2, 5)], tags=("complex",)),
    _case("fft.ifft", "cut", lambda a: ag.fft.ifft(a, n=3, dim=0, norm="forward"), [(4, 2)]),
    _case("fft.fftn", "sizes", lambda a: ag.fft.fftn(a, s=(3, 4)), [(2, 3, 3)]),
    case("fft.rfft", "padded", lambda a: ag.fft.rfft(a, n=7), [(2, 6)], tags=("complex",)),
    _case("fft.irfft", "ortho", lambda a: ag.fft.irfft(a, n=8, norm="ortho"), [(2, 5)]),
    case("fft.rfftn", "basic", lambda a: ag.fft.rfftn(a), [(3, 4)], tags=("complex",)),
    _case("fft.irfftn", "sizes", lambda a: ag.fft.irfftn(a, s=(2, 5)), [(2, 3)]),
    _case("fft.hfft", "padded", lambda a: ag.fft.hfft(a, n=6), [(2, 4)]),
    case("fft.ihfft", "basic", lambda a: ag.fft.ihfft(a), [(2, 5)], tags=("complex",)),
)
