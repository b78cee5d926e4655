"""Activations, copies and dtype conversions, and a composition of many ops."""

import arraygrad as ag
from arraygrad.conformance.cases._make import case

CASES = (
    case("softmax", "dim1", lambda a: a.softmax(1), [(2, 3)]),
    case("softmax", "dim0", lambda a: ag.softmax(a, dim=0), [(2, 3)]),
    case("softmax", "0dim", lambda a: a.softmax(0) * a, [()]),
    case("log_softmax", "dim-1", lambda a: a.log_softmax(-1), [(2, 3)]),
    case("log_softmax", "dim0", lambda a: ag.log_softmax(a, dim=0), [(3, 2)]),
    case("clone", "basic", lambda a: a.clone(), [(2, 3)]),
    case("to", "same-dtype", lambda a: a.to(a.dtype), [(2, 3)]),
    # Promotes to float64: meaningful only where the backend has it.
    case("double", "basic", lambda a: a.double(), [(2, 3)], tags=("float64",)),
    case("composite", "chain",
         lambda a, b: ((a * b).sin() + a.exp()).sum(0) / (b ** 2 + 1).mean(), [(2, 3), (2, 3)]),
)
