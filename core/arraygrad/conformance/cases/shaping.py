"""Shape ops of the ``shaping`` family: flips, rolls, tiles, splits, triangles, aliases."""

import arraygrad as ag
from arraygrad.conformance.cases._make import case

# the inputs are not combined (each is reshaped or expanded alone, or one is a host-side count),
# so tensors on different devices are no error, as in PyTorch: no mixed-device check
_NO_MIX = ("forward", "grad", "double_grad", "dtypes")

CASES = (
    case("fliplr", "basic", lambda a: ag.fliplr(a), [(2, 3, 2)]),
    case("flipud", "basic", lambda a: a.flipud(), [(3, 2)]),
    case("roll", "flat", lambda a: ag.roll(a, 2), [(2, 3)]),
    case("roll", "dims", lambda a: a.roll((1, -1), (0, 1)), [(3, 4)]),
    case("rot90", "k1", lambda a: ag.rot90(a), [(2, 3)]),
    case("rot90", "k3_dims", lambda a: a.rot90(3, (1, 2)), [(2, 3, 4)]),
    case("tile", "pad", lambda a: ag.tile(a, (2, 1, 2)), [(2, 3)]),
    case("repeat_interleave", "int", lambda a: a.repeat_interleave(2, dim=1), [(2, 3)]),
    case("repeat_interleave", "flat", lambda a: ag.repeat_interleave(a, 2), [(2, 2)]),
    case("repeat_interleave", "tensor", lambda a, r: a.repeat_interleave(r, dim=0), [(3, 2)],
         consts=[[1, 0, 2]],
         checks=_NO_MIX, tags=("values_shape",)),
    case("tensor_split", "sections", lambda a: ag.tensor_split(a, 3, 1), [(2, 5)]),
    case("tensor_split", "indices", lambda a: a.tensor_split([1, 3]), [(4, 2)]),
    case("hsplit", "basic", lambda a: ag.hsplit(a, 2), [(2, 4)]),
    case("vsplit", "basic", lambda a: ag.vsplit(a, [1]), [(3, 2)]),
    case("dsplit", "basic", lambda a: a.dsplit(2), [(2, 2, 4)]),
    case("moveaxis", "basic", lambda a: ag.moveaxis(a, 0, -1), [(2, 3, 2)]),
    case("swapdims", "basic", lambda a: a.swapdims(0, 2), [(2, 3, 2)]),
    case("unflatten", "basic", lambda a: a.unflatten(1, (2, -1)), [(2, 6)]),
    case("ravel", "basic", lambda a: a.t().ravel(), [(2, 3)]),
    case("atleast_3d", "basic", lambda a: ag.atleast_3d(a), [(2, 3)]),
    case("atleast_2d", "several", lambda a, b: ag.atleast_2d(a, b), [(), (3,)],
         checks=_NO_MIX),
    case("tril", "basic", lambda a: ag.tril(a), [(3, 4)]),
    case("tril", "batched_offset", lambda a: a.tril(-1), [(2, 3, 3)]),
    case("triu", "offset", lambda a: ag.triu(a, diagonal=1), [(3, 4)]),
)
