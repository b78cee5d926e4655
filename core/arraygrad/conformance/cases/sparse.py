"""Sparse COO family (``arraygrad.sparse``): each case builds a sparse tensor from a float
input (its values) and constant indices with a repeated position, runs a sparse op, and ends
dense, so every backend is checked on the forward, the gradients of the values and the dense
operands (finite differences), double backward and dtypes like any op.
"""

from __future__ import annotations

import arraygrad as ag
from arraygrad.conformance.cases._make import case

IDX = [[1, 0, 1, 0, 2], [2, 0, 2, 2, 1]]  # a (3, 3) matrix; (1, 2) stored twice
SHAPE = (3, 3)
# the indices' values decide what a sparse op computes (the check against the size, the
# entries coalescing keeps): a backend holding no values (meta) skips these cases
_VALUES = ("values_shape",)


def _s(v: ag.Tensor, i: ag.Tensor) -> ag.Tensor:
    return ag.sparse_coo_tensor(i, v, SHAPE)


CASES = (
    case("sparse_coo_tensor", "to_dense", lambda v, i: _s(v, i).to_dense(), [(5,)],
         consts=[IDX], tags=_VALUES),
    case("sparse_coo_tensor", "hybrid", lambda v, i: ag.sparse_coo_tensor(i[:1], v, (3, 2))
         .coalesce().to_dense(), [(5, 2)], consts=[IDX], tags=_VALUES),
    case("sparse.mm", "basic", lambda v, d, i: ag.sparse.mm(_s(v, i), d), [(5,), (3, 2)],
         consts=[IDX], tags=_VALUES),
    case("sparse.addmm", "scaled", lambda c, v, d, i: ag.sparse.addmm(c, _s(v, i), d, beta=0.5,
                                                                     alpha=2.0),
         [(3, 2), (5,), (3, 2)], consts=[IDX], tags=_VALUES),
    case("mm", "sparse_dense", lambda v, d, i: ag.mm(_s(v, i), d), [(5,), (3, 2)],
         consts=[IDX], tags=_VALUES),
    case("mm", "dense_sparse", lambda v, d, i: d @ _s(v, i), [(5,), (2, 3)], consts=[IDX], tags=_VALUES),
    case("sparse.sum", "dim", lambda v, i: ag.sparse.sum(_s(v, i), 0).to_dense(), [(5,)],
         consts=[IDX], tags=_VALUES),
    case("sparse.softmax", "dim1", lambda v, i: ag.sparse.softmax(_s(v, i), 1).to_dense(),
         [(5,)], consts=[IDX], tags=_VALUES),
    case("sparse.mul", "dense", lambda v, d, i: (_s(v, i) * d).to_dense(), [(5,), (3, 3)],
         consts=[IDX], tags=_VALUES),
    case("sparse.add", "sparse", lambda v, w, i: (_s(v, i) + _s(w, i).t()).to_dense(),
         [(5,), (5,)], consts=[IDX], tags=_VALUES),
    case("sparse.values", "tanh", lambda v, i: _s(v, i).tanh().coalesce().values(), [(5,)],
         consts=[IDX], tags=_VALUES),
)
