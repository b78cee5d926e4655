"""Scatter family: scatter/scatter_add/scatter_reduce, index_add/copy/fill, masked_*, take/put.

Index tensors and masks are constant inputs (``consts``); repeated targets check that the
backward accumulates (or, for ``scatter``, that the overwritten values get no gradient).
"""

from __future__ import annotations

import arraygrad as ag
from arraygrad.conformance.cases._make import case

IDX = [[0, 1, 2, 0], [2, 2, 0, 1]]  # into a (3, 4) self along dim 0; unique per column
IDX_REP = [[0, 0, 2, 0], [0, 2, 0, 2]]  # repeats: several values reduce into one target
MASK = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]

CASES = (
    case("scatter", "src", lambda a, s, i: a.scatter(0, i, s), [(3, 4), (2, 4)], consts=[IDX]),
    case("scatter", "src-larger", lambda a, s, i: ag.scatter(a, 1, i, s), [(3, 4), (3, 5)],
         consts=[[[0, 3], [1, 2], [3, 0]]]),
    case("scatter", "value", lambda a, i: a.scatter(0, i, 2.5), [(3, 4)], consts=[IDX]),
    case("scatter_add", "repeats", lambda a, s, i: a.scatter_add(0, i, s), [(3, 4), (2, 4)],
         consts=[IDX_REP]),
    *(case("scatter_reduce", f"{r}-{'self' if inc else 'noself'}",
           (lambda r, inc: lambda a, s, i: a.scatter_reduce(0, i, s, r, include_self=inc))(r, inc),
           [(3, 4), (2, 4)], "away" if r == "prod" else "float", consts=[IDX_REP])
      for r in ("sum", "mean", "prod") for inc in (True, False)),
    *(case("scatter_reduce", f"{r}-{'self' if inc else 'noself'}",
           (lambda r, inc: lambda a, s, i: ag.scatter_reduce(a, 0, i, s, r, include_self=inc))(r, inc),
           [(3, 4), (2, 4)], consts=[IDX_REP])
      for r in ("amax", "amin") for inc in (True, False)),
    case("scatter_reduce", "prod-zeros", lambda a, s, i: a.scatter_reduce(0, i, s, "prod"),
         [(3, 4), (2, 4)], "away", zeros=(0, 5), consts=[IDX_REP]),
    case("index_add", "repeats", lambda a, s, i: a.index_add(1, i, s, alpha=2.0), [(3, 4), (3, 3)],
         consts=[[0, 3, 0]]),
    case("index_copy", "dim0", lambda a, s, i: ag.index_copy(a, 0, i, s), [(3, 4), (2, 4)],
         consts=[[2, 0]]),
    case("index_fill", "dim1", lambda a, i: a.index_fill(1, i, -1.0), [(3, 4)], consts=[[1, 3]]),
    case("masked_fill", "broadcast-mask", lambda a, m: a.masked_fill(m, 0.5), [(2, 3, 4)],
         consts=[MASK]),
    case("masked_fill", "tensor-value", lambda a, v, m: ag.masked_fill(a, m, v), [(3, 4), ()],
         consts=[MASK]),
    case("masked_select", "broadcast", lambda a, m: a.masked_select(m), [(4,)], consts=[MASK],
         tags=("values_shape",)),
    case("masked_scatter", "basic", lambda a, s, m: a.masked_scatter(m, s), [(3, 4), (2, 4)],
         consts=[MASK]),
    case("take", "negative", lambda a, i: ag.take(a, i), [(3, 4)], consts=[[[0, -1], [5, 5]]]),
    case("put", "basic", lambda a, s, i: a.put(i, s), [(3, 4), (3,)], consts=[[0, -1, 5]]),
    case("put", "accumulate", lambda a, s, i: ag.put(a, i, s, accumulate=True), [(3, 4), (3,)],
         consts=[[0, 5, 5]]),
    case("index_put", "accumulate", lambda a, s, i: ag.index_put(a, (i,), s, accumulate=True),
         [(3, 4), (3, 4)], consts=[[0, 2, 0]]),
)
