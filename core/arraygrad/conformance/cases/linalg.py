"""The matmul family: every operand-rank combination ``@`` accepts, and mm/bmm/mv/dot/outer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import arraygrad as ag
from arraygrad.conformance.cases._make import case

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor


def _matmul(a: Tensor, b: Tensor) -> Any:
    return a @ b


CASES = (
    case("matmul", "1d-1d", _matmul, [(3,), (3,)]),
    case("matmul", "2d-1d", _matmul, [(2, 3), (3,)]),
    case("matmul", "1d-2d", _matmul, [(3,), (3, 2)]),
    case("matmul", "2d-2d", _matmul, [(2, 3), (3, 2)]),
    case("matmul", "batched", _matmul, [(2, 2, 3), (2, 3, 2)]),
    case("matmul", "batched-broadcast", _matmul, [(2, 1, 2, 3), (3, 3, 2)]),
    case("matmul", "2d-batched", _matmul, [(2, 3), (2, 3, 2)]),
    case("matmul", "batched-1d", _matmul, [(2, 2, 3), (3,)]),
    case("matmul", "1d-batched", _matmul, [(3,), (2, 3, 2)]),
    case("mm", "basic", ag.mm, [(2, 3), (3, 2)]),
    case("bmm", "basic", ag.bmm, [(2, 2, 3), (2, 3, 2)]),
    case("mv", "basic", ag.mv, [(2, 3), (3,)]),
    case("dot", "basic", ag.dot, [(3,), (3,)]),
    case("outer", "basic", ag.outer, [(3,), (2,)]),
)
