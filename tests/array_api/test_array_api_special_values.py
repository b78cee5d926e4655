"""The standard's special values of complex ``expm1`` and ``tanh`` at infinite and NaN parts
(Array API 2024.12, the "Special cases" of each function), where NumPy's kernels, which
arraygrad's NumPy backend runs, give NaN parts or another sign of zero."""

from __future__ import annotations

import cmath
import math

import pytest

from arraygrad import array_api as xp

INF, NAN = math.inf, math.nan


def _same(got: complex, expected: complex) -> bool:
    def part(g: float, e: float) -> bool:
        if math.isnan(e):
            return math.isnan(g)
        return g == e and math.copysign(1, g) == math.copysign(1, e)

    return part(got.real, expected.real) and part(got.imag, expected.imag)


EXPM1 = [  # (argument, the standard's result)
    (complex(INF, 0.0), complex(INF, 0.0)),
    (complex(INF, -0.0), complex(INF, -0.0)),  # the conjugate's
    (complex(-INF, INF), complex(-1.0, 0.0)),
    (complex(-INF, NAN), complex(-1.0, 0.0)),
    (complex(INF, INF), complex(INF, NAN)),
    (complex(INF, NAN), complex(INF, NAN)),
    (complex(NAN, 0.0), complex(NAN, 0.0)),
    (complex(NAN, -0.0), complex(NAN, -0.0)),
    (complex(-0.0, 0.0), complex(0.0, 0.0)),
]
TANH = [
    (complex(INF, 1.0), complex(1.0, 0.0)),
    (complex(INF, 3.0), complex(1.0, 0.0)),  # NumPy: 1 - 0j (the sign of sin(6))
    (complex(INF, -3.0), complex(1.0, -0.0)),
    (complex(-INF, 3.0), complex(-1.0, 0.0)),
]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name, case", [("expm1", c) for c in EXPM1] + [("tanh", c) for c in TANH])
def test_complex_special_values_are_the_standards(name, case, dtype) -> None:
    argument, expected = case
    got = getattr(xp, name)(xp.asarray([argument, 0.5 + 0.25j], dtype=getattr(xp, dtype)))
    assert _same(got.tolist()[0], expected), (argument, got.tolist()[0])
    regular = cmath.tanh(0.5 + 0.25j) if name == "tanh" else cmath.exp(0.5 + 0.25j) - 1
    assert abs(got.tolist()[1] - regular) < 1e-6  # other elements are untouched
