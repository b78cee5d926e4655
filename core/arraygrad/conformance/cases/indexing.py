"""Indexing: basic and advanced ``__getitem__``, gather/index_select, ``index_put``, setitem.

Index tensors are constant inputs (``consts``), made on the device under test.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import arraygrad as ag
from arraygrad.conformance.cases._make import case
from arraygrad.ops.indexing import index_put

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

IDX = [0, 0, 1]  # repeats: the backward must accumulate (scatter-add)


def _setitem_on_clone(a: Tensor, v: Tensor) -> Any:
    c = a.clone()
    c[1:, ::2] = v
    return c


CASES = (
    case("getitem", "int", lambda a: a[1], [(3, 2)]),
    case("getitem", "neg-int", lambda a: a[-1, 0], [(3, 2)]),
    case("getitem", "slices", lambda a: a[1:, ::2], [(3, 4)]),
    case("getitem", "none-ellipsis", lambda a: a[None, ..., 1], [(2, 3, 2)]),
    case("getitem", "int-array-repeats", lambda a, i: a[i], [(3, 2)], consts=[IDX]),
    case("getitem", "list-repeats", lambda a: a[[2, 2, 0]], [(3, 2)]),
    case("getitem", "int-array-2d", lambda a, i: a[:, i], [(2, 3)], consts=[[[0, 1], [1, 1]]]),
    case("getitem", "two-arrays", lambda a, i, j: a[i, j], [(3, 2)], consts=[IDX, [1, 1, 0]]),
    case("getitem", "bool-mask", lambda a, m: a[m], [(2, 3)],
         consts=[[[True, False, True], [False, True, True]]], tags=("values_shape",)),
    case("getitem", "bool-mask-rows", lambda a, m: a[m], [(3, 2)], consts=[[True, False, True]],
         tags=("values_shape",)),
    case("getitem", "separated-arrays", lambda a, i, j: a[i, :, j], [(3, 2, 2)],
         consts=[[0, 2], [1, 1]]),
    case("getitem", "ellipsis-mask", lambda a, m: a[..., m], [(2, 3)], consts=[[True, False, True]],
         tags=("values_shape",)),
    case("gather", "dim1", lambda a, i: a.gather(1, i), [(2, 3)], consts=[[[0, 0, 2], [1, 0, 1]]]),
    case("gather", "dim0", lambda a, i: ag.gather(a, 0, i), [(3, 2)], consts=[[[2, 0], [2, 1]]]),
    case("index_select", "dim0", lambda a, i: a.index_select(0, i), [(3, 2)], consts=[IDX]),
    case("index_select", "dim1", lambda a, i: ag.index_select(a, 1, i), [(2, 3)],
         consts=[[2, 0, 2]]),
    case("take_along_dim", "basic", lambda a, i: ag.take_along_dim(a, i, 1), [(2, 3)],
         consts=[[[0], [2]]]),
    case("index_put", "slice", lambda a, v: index_put(a, (slice(0, 2),), v), [(3, 2), (2, 2)]),
    case("index_put", "array-broadcast", lambda a, v, i: index_put(a, i, v), [(3, 2), (2,)],
         consts=[[2, 0]]),
    case("setitem", "on-clone", _setitem_on_clone, [(3, 4), (2, 2)]),
)
