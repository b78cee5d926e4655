"""Normalisation functionals: instance, RMS, local-response, layer and group norm."""

import arraygrad.nn.functional as F
from arraygrad.conformance.cases._make import case

CASES = (
    case("instance_norm", "affine", lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
         [(2, 3, 4), (3,), (3,)]),
    case("instance_norm", "2d", lambda x: F.instance_norm(x), [(1, 2, 3, 2)]),
    case("rms_norm", "weight", lambda x, w: F.rms_norm(x, (4,), w, eps=1e-6), [(2, 4), (4,)]),
    case("rms_norm", "2-dims", lambda x: F.rms_norm(x, (2, 3)), [(2, 2, 3)], "away"),
    case("local_response_norm", "size3",
         lambda x: F.local_response_norm(x, 3, alpha=0.5, beta=0.75, k=1.5), [(2, 4, 3)]),
    case("local_response_norm", "4d-size2",
         lambda x: F.local_response_norm(x, 2, alpha=0.3), [(1, 3, 2, 2)]),
    case("layer_norm", "affine", lambda x, w, b: F.layer_norm(x, (3,), w, b), [(2, 3), (3,), (3,)]),
    case("group_norm", "2-groups", lambda x: F.group_norm(x, 2), [(2, 4, 3)]),
)
