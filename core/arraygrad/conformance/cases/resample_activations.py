"""The rest of PyTorch's activations (``nn.functional``). Piecewise ones take ``grid`` inputs,
whose values keep away from every kink (0, +-0.5, +-1, +-2, and +-3, 6 by a margin).

``softsign`` has no case here: the op-plugin example in docs/examples registers an op of that
name whose case the documentation test selects by it (``-k softsign``); ``F.softsign`` is
checked in tests/nn/test_activations_more.py."""

from arraygrad.conformance.cases._make import case
from arraygrad.nn import functional as F

_SHAPE = [(3, 4)]

CASES = (
    case("hardtanh", "default", F.hardtanh, _SHAPE, "grid"),
    case("hardtanh", "range", lambda a: F.hardtanh(a, -2.5, 1.5), _SHAPE, "grid"),
    case("relu6", "basic", F.relu6, [(4, 5)], "grid"),
    case("selu", "basic", F.selu, _SHAPE, "grid"),
    case("celu", "alpha", lambda a: F.celu(a, 0.7), _SHAPE, "grid"),
    case("mish", "basic", F.mish, _SHAPE, low=-3.0, high=3.0),
    case("hardswish", "basic", F.hardswish, [(4, 5)], "grid"),
    case("hardsigmoid", "basic", F.hardsigmoid, [(4, 5)], "grid"),
    case("tanhshrink", "basic", F.tanhshrink, _SHAPE, low=-2.0, high=2.0),
    case("softmin", "dim1", lambda a: F.softmin(a, dim=1), _SHAPE),
    case("threshold", "basic", lambda a: F.threshold(a, 0.25, -1.5), _SHAPE, "grid"),
    case("hardshrink", "basic", lambda a: F.hardshrink(a, 0.4), _SHAPE, "grid"),
    case("softshrink", "basic", lambda a: F.softshrink(a, 0.4), _SHAPE, "grid"),
    case("prelu", "per-channel", F.prelu, [(2, 3, 2), (3,)], "grid"),
    case("prelu", "shared", F.prelu, [(4, 2), (1,)], "grid"),
    case("rrelu", "eval", lambda a: F.rrelu(a, 0.1, 0.4), _SHAPE, "grid"),
    case("glu", "dim1", lambda a: F.glu(a, 1), [(3, 4)]),
    case("glu", "dim0", lambda a: F.glu(a, 0), [(4, 2, 3)]),
)
