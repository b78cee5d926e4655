"""Shape ops: reshape/view, squeeze, transposes, expand/repeat, flip, cat/stack/split..."""

import arraygrad as ag
from arraygrad.conformance.cases._make import case

CASES = (
    case("reshape", "basic", lambda a: a.reshape(3, 2), [(2, 3)]),
    case("reshape", "infer", lambda a: a.reshape(-1), [(2, 3)]),
    case("view", "basic", lambda a: a.view(1, 6), [(2, 3)]),
    case("flatten", "basic", lambda a: a.flatten(1), [(2, 3, 2)]),
    case("squeeze", "all", lambda a: a.squeeze(), [(2, 1, 3)]),
    case("squeeze", "dim", lambda a: a.squeeze(1), [(2, 1, 3)]),
    case("unsqueeze", "basic", lambda a: a.unsqueeze(-1), [(2, 3)]),
    case("transpose", "basic", lambda a: a.transpose(0, 2), [(2, 3, 2)]),
    case("permute", "basic", lambda a: a.permute(2, 0, 1), [(2, 3, 2)]),
    case("T", "basic", lambda a: a.T, [(2, 3)]),
    case("mT", "basic", lambda a: a.mT, [(2, 2, 3)]),
    case("expand", "basic", lambda a: a.expand(2, 3, 3), [(3, 1)]),
    case("expand", "neg1", lambda a: a.expand(-1, 4), [(2, 1)]),
    case("repeat", "basic", lambda a: a.repeat(2, 1, 2), [(2, 3)]),
    case("flip", "basic", lambda a: a.flip(0, 1), [(2, 3)]),
    case("cat", "dim1", lambda a, b: ag.cat([a, b], 1), [(2, 3), (2, 2)]),
    case("cat", "dim0", lambda a, b, c: ag.cat([a, b, c]), [(1, 3), (2, 3), (1, 3)]),
    case("stack", "basic", lambda a, b: ag.stack([a, b], 1), [(2, 3), (2, 3)]),
    case("split", "size", lambda a: a.split(2, 1), [(2, 5)]),
    case("split", "sizes", lambda a: ag.split(a, [1, 3], 1), [(2, 4)]),
    case("chunk", "basic", lambda a: a.chunk(2), [(3, 2)]),
    case("unbind", "basic", lambda a: a.unbind(1), [(2, 3)]),
    case("narrow", "basic", lambda a: a.narrow(1, 1, 2), [(2, 4)]),
    case("movedim", "basic", lambda a: a.movedim(0, -1), [(2, 3, 2)]),
    case("as_subclass", "alias", lambda a: a.as_subclass(ag.Tensor) * 1, [(2, 3)]),
)
