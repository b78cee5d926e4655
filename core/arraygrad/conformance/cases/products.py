"""Diagonals and products of the ``products`` family: diag*, trace, kron, tensordot, add*mm..."""

import arraygrad as ag
from arraygrad.conformance.cases._make import case

# the inputs are not combined (each is reshaped or expanded alone, or one is a host-side count),
# so tensors on different devices are no error, as in PyTorch: no mixed-device check
_NO_MIX = ("forward", "grad", "double_grad", "dtypes")

CASES = (
    case("diagonal", "basic", lambda a: ag.diagonal(a), [(3, 4)]),
    case("diagonal", "offset_dims", lambda a: a.diagonal(-1, 2, 0), [(3, 2, 4)]),
    case("diag_embed", "basic", lambda a: ag.diag_embed(a), [(2, 3)]),
    case("diag_embed", "offset_dims", lambda a: a.diag_embed(1, 0, 2), [(2, 3)]),
    case("diag", "vector", lambda a: ag.diag(a, -1), [(3,)]),
    case("diag", "matrix", lambda a: a.diag(1), [(3, 4)]),
    case("diagflat", "basic", lambda a: ag.diagflat(a), [(2, 2)]),
    case("trace", "basic", lambda a: ag.trace(a), [(3, 4)]),
    case("block_diag", "basic", lambda a, b, c: ag.block_diag(a, b, c), [(2, 3), (3,), ()]),
    case("cartesian_prod", "basic", lambda a, b: ag.cartesian_prod(a, b), [(3,), (2,)]),
    case("combinations", "basic", lambda a: ag.combinations(a, 2), [(4,)]),
    case("combinations", "replacement", lambda a: ag.combinations(a, 2, with_replacement=True), [(3,)]),
    case("kron", "basic", lambda a, b: ag.kron(a, b), [(2, 3), (2, 2)]),
    case("kron", "ranks", lambda a, b: a.kron(b), [(2,), (2, 3)]),
    case("inner", "basic", lambda a, b: ag.inner(a, b), [(2, 3), (4, 3)]),
    case("tensordot", "int", lambda a, b: ag.tensordot(a, b, 1), [(2, 3), (3, 2)]),
    case("tensordot", "lists", lambda a, b: ag.tensordot(a, b, ([0, 2], [1, 0])), [(2, 3, 4), (4, 2)]),
    case("vdot", "basic", lambda a, b: ag.vdot(a, b), [(4,), (4,)]),
    case("addmm", "basic", lambda c, a, b: ag.addmm(c, a, b), [(2, 2), (2, 3), (3, 2)]),
    case("addmm", "scaled", lambda c, a, b: c.addmm(a, b, beta=0.5, alpha=-2.0), [(2,), (2, 3), (3, 2)]),
    case("addmm", "beta0", lambda c, a, b: ag.addmm(c, a, b, beta=0), [(2, 2), (2, 3), (3, 2)]),
    case("addmv", "basic", lambda c, a, b: ag.addmv(c, a, b, alpha=3.0), [(2,), (2, 3), (3,)]),
    case("addr", "basic", lambda c, a, b: ag.addr(c, a, b, beta=2.0), [(2, 3), (2,), (3,)]),
    case("baddbmm", "basic", lambda c, a, b: ag.baddbmm(c, a, b, beta=0.5), [(2, 2, 2), (2, 2, 3), (2, 3, 2)]),
    case("addbmm", "basic", lambda c, a, b: ag.addbmm(c, a, b, alpha=0.5), [(2, 2), (3, 2, 3), (3, 3, 2)]),
    case("meshgrid", "ij", lambda a, b: ag.meshgrid(a, b, indexing="ij"), [(3,), (2,)]),
    case("meshgrid", "xy", lambda a, b: ag.meshgrid(a, b, indexing="xy"), [(3,), (2,)]),
    case("broadcast_tensors", "basic", lambda a, b: ag.broadcast_tensors(a, b), [(2, 1), (3,)],
         checks=_NO_MIX),
)
