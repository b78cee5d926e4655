"""``einsum`` on representative equations: contraction, batch, diagonal, ellipsis, chains."""

import arraygrad as ag
from arraygrad.conformance.cases._make import case

CASES = (
    case("einsum", "matmul", lambda a, b: ag.einsum("ij,jk->ik", a, b), [(2, 3), (3, 2)]),
    case("einsum", "batch", lambda a, b: ag.einsum("bij,bjk->bik", a, b), [(2, 2, 3), (2, 3, 2)]),
    case("einsum", "diagonal", lambda a: ag.einsum("ii->i", a), [(3, 3)]),
    case("einsum", "trace_implicit", lambda a: ag.einsum("ii", a), [(3, 3)]),
    case("einsum", "outer", lambda a, b: ag.einsum("i,j", a, b), [(3,), (2,)]),
    case("einsum", "ellipsis", lambda a, b: ag.einsum("...ij,...jk->...ik", a, b), [(2, 2, 3), (3, 2)]),
    case("einsum", "chain", lambda a, b, c: ag.einsum("i,ij,j->", a, b, c), [(2,), (2, 3), (3,)]),
    case("einsum", "repeated_operand", lambda a: ag.einsum("ij,ij->i", a, a), [(2, 3)]),
)
