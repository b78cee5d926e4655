"""The built-in ops' conformance cases, as data, one module per op family.

``BUILTIN_CASES`` is the table every backend is checked against (and the one
``tests/ops/test_gradcheck_ops.py`` runs); adding an op here adds its checks
for every backend at once.
"""

from arraygrad.conformance.cases import (activation, arithmetic, indexing, linalg, reduction,
                                         shape, unary)

BUILTIN_CASES = (arithmetic.CASES + linalg.CASES + unary.CASES + reduction.CASES + shape.CASES
                 + indexing.CASES + activation.CASES)
"""Every built-in op's cases, in report order."""

__all__ = ["BUILTIN_CASES"]
