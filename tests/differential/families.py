"""The op families beyond elementwise math and reductions (issue 29): creation, random,
indexing (``__getitem__``/``__setitem__``), shape ops, scatter/gather, bitwise, comparison of
integers, pooling, convolution and the losses with class targets.

Argument samplers may return NumPy arrays (index tensors, targets, masks): ``compare``
makes them tensors of the same dtype in each library. ``_pos`` holds positional arguments
after the tensor inputs; ``arity=0`` calls take no tensor input (creation); ``_list`` passes
the tensor inputs as one list (``cat``, ``stack``). ``values=False``: random results, whose
shape, dtype and error class are compared but not their values.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from tests.differential.calls import Spec

Shapes = list[tuple[int, ...]]


def _size(r: random.Random) -> list[int]:
    return [r.randrange(0, 4) for _ in range(r.randrange(0, 3))]


def _index(r: random.Random, shapes: Shapes, dim: int, n: int | None = None) -> np.ndarray:
    """int64 indices along ``dim`` of the first input (in range, mostly)."""
    size = shapes[0][dim] if shapes[0] else 1
    shape = list(shapes[0]) or [1]
    if n is not None:
        shape[dim] = n
    return np.array([r.randrange(0, max(size, 1)) for _ in range(int(np.prod(shape)))],
                    dtype=np.int64).reshape(shape)


def _dim_of(r: random.Random, shapes: Shapes) -> int:
    nd = max(1, len(shapes[0]))
    return r.randrange(-nd, nd)


def _gather(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    dim = _dim_of(r, shapes)
    d = dim % max(1, len(shapes[0]))
    return {"dim": dim, "index": _index(r, shapes, d, r.randrange(1, 3))}


def _scatter(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    dim = _dim_of(r, shapes)
    d = dim % max(1, len(shapes[0]))
    index = _index(r, shapes, d, 1)
    return {"dim": dim, "index": index, "src": np.ones(index.shape) * 2.5}


def _index_select(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    dim = _dim_of(r, shapes)
    d = dim % max(1, len(shapes[0]))
    size = shapes[0][d] if shapes[0] else 1
    return {"dim": dim, "index": np.array([r.randrange(0, max(size, 1)) for _ in range(2)],
                                          dtype=np.int64)}


def _getitem_key(r: random.Random, shapes: Shapes) -> Any:
    """A key of ints, slices, None, Ellipsis, an int64 index array or a bool mask."""
    shape = shapes[0]
    parts: list[Any] = []
    for d, n in enumerate(shape):
        kind = r.random()
        if kind < 0.3 and n:
            parts.append(r.randrange(-n, n))
        elif kind < 0.6:
            parts.append(slice(r.choice([None, 0, 1]), r.choice([None, -1, 3]), r.choice([None, 1, 2])))
        elif kind < 0.75:
            parts.append(np.array([r.randrange(0, max(n, 1)) for _ in range(2)], dtype=np.int64))
        elif kind < 0.85:
            parts.append(np.array([r.random() < 0.5 for _ in range(n)], dtype=bool))
        elif kind < 0.92:
            parts.append(None)
        else:
            parts.append(Ellipsis)
            break
    if not parts:
        parts = [r.choice([None, Ellipsis, 0])]
    return tuple(parts) if len(parts) > 1 or r.random() < 0.5 else parts[0]


def _getitem(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [_getitem_key(r, shapes)]}


def _setitem(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [_getitem_key(r, shapes), r.choice([1.5, -2.0, np.array(0.25)])],
            "_inplace": True}


def _reshape(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    n = int(np.prod(shapes[0]))
    forms = [[n], [-1], [1, n], [n, -1], [-1, 1]]
    if n and n % 2 == 0:
        forms.append([2, n // 2])
    return {"_pos": [tuple(r.choice(forms))]}


def _permute(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    dims = list(range(len(shapes[0])))
    r.shuffle(dims)
    return {"_pos": [tuple(dims)]}


def _two_dims(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [_dim_of(r, shapes), _dim_of(r, shapes)]}


def _one_dim(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"dim": _dim_of(r, shapes)}


def _unsqueeze(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    nd = len(shapes[0]) + 1
    return {"dim": r.randrange(-nd, nd)}


def _expand(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [tuple([r.choice([2, 3])] + [-1 if r.random() < 0.5 else s for s in shapes[0]])]}


def _repeat(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [tuple(r.randrange(0, 3) for _ in range(len(shapes[0]) + r.randrange(0, 2)))]}


def _narrow(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    dim = _dim_of(r, shapes)
    n = shapes[0][dim] if shapes[0] else 1
    start = r.randrange(0, max(n, 1))
    return {"_pos": [dim, start, r.randrange(0, max(n - start, 0) + 1)]}


def _split(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [r.randrange(1, 4)], "dim": _dim_of(r, shapes)}


def _cat(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_list": True, "dim": _dim_of(r, shapes)}


def _creation_size(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [tuple(_size(r))], "dtype": r.choice([None, "float64", "int64", "bool"])}


def _full(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [tuple(_size(r)), r.choice([0, 3, -1.5, True])],
            "dtype": r.choice([None, "float64", "int64"])}


def _arange(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    start, end = r.randrange(-3, 4), r.randrange(-3, 6)
    return {"_pos": [start, end, r.choice([1, 2, -1, 0.5])], "dtype": r.choice([None, "float64", "int64"])}


def _linspace(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [r.uniform(-2, 2), r.uniform(-2, 2), r.randrange(0, 6)],
            "dtype": r.choice([None, "float64"])}


def _eye(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    pos = [r.randrange(0, 4)] + ([r.randrange(0, 4)] if r.random() < 0.5 else [])
    return {"_pos": pos, "dtype": r.choice([None, "float64", "int64", "bool"])}


def _tensor(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    data = r.choice([[1, 2, 3], [[1.5, 2], [3, 4]], [True, False], 3.5, [], [[1], [2]],
                     [1, 2.5], [[True, 2], [3, 4]]])
    return {"_pos": [data], "dtype": r.choice([None, "float64", "int64", "bool"])}


def _randint(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    low = r.randrange(-3, 3)
    return {"_pos": [low, low + r.randrange(1, 5), tuple(_size(r))],
            "dtype": r.choice([None, "int64", "float64"])}


def _randperm(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [r.randrange(0, 6)], "dtype": r.choice([None, "int64", "float64"])}


def _multinomial(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    return {"_pos": [r.randrange(1, 3)], "replacement": True}



def _pool(nd: int, adaptive: bool = False):
    def args(r: random.Random, shapes: Shapes) -> dict[str, Any]:
        if adaptive:
            return {"output_size": r.choice([1, 2, 3])}
        return {"kernel_size": r.choice([1, 2, 3]), "stride": r.choice([None, 1, 2]),
                "padding": r.choice([0, 1])}
    return args


def _pool_shapes(nd: int):
    def shapes(r: random.Random) -> Shapes:
        return [tuple([r.randrange(1, 3), r.randrange(1, 3)][: r.choice([1, 2])]
                      + [r.randrange(1, 6) for _ in range(nd)])]
    return shapes


def _conv_args(nd: int):
    def args(r: random.Random, shapes: Shapes) -> dict[str, Any]:
        return {"stride": r.choice([1, 2]), "padding": r.choice([0, 1]),
                "dilation": r.choice([1, 2])}
    return args


def _conv_shapes(nd: int):
    def shapes(r: random.Random) -> Shapes:
        cin, cout, k = r.randrange(1, 3), r.randrange(1, 3), r.randrange(1, 4)
        x = (r.randrange(1, 3), cin) + tuple(r.randrange(2, 6) for _ in range(nd))
        return [x, (cout, cin) + (k,) * nd]
    return shapes


def _class_target(r: random.Random, shapes: Shapes) -> dict[str, Any]:
    shape = shapes[0]
    classes = shape[1] if len(shape) > 1 else (shape[0] if shape else 1)
    target_shape = (shape[0],) + tuple(shape[2:]) if len(shape) > 1 else ()
    target = np.array([r.randrange(0, max(classes, 1)) for _ in range(int(np.prod(target_shape)))],
                      dtype=np.int64).reshape(target_shape)
    return {"target": target, "reduction": r.choice(["mean", "sum", "none"])}


def _class_shapes(r: random.Random) -> Shapes:
    return [r.choice([(r.randrange(1, 4), r.randrange(1, 4)), (r.randrange(1, 4),),
                      (2, 3, r.randrange(1, 3))])]


FAMILY_SPECS: list[Spec] = [
    # creation (no tensor input)
    Spec("zeros", arity=0, args=_creation_size, grad=False),
    Spec("ones", arity=0, args=_creation_size, grad=False),
    Spec("empty", arity=0, args=_creation_size, grad=False, values=False),
    Spec("full", arity=0, args=_full, grad=False),
    Spec("arange", arity=0, args=_arange, grad=False),
    Spec("linspace", arity=0, args=_linspace, grad=False),
    Spec("eye", arity=0, args=_eye, grad=False),
    Spec("tensor", arity=0, args=_tensor, grad=False),
    # random
    Spec("randint", arity=0, args=_randint, grad=False, values=False),
    Spec("randperm", arity=0, args=_randperm, grad=False, values=False),
    Spec("rand", arity=0, args=_creation_size, grad=False, values=False),
    Spec("randn", arity=0, args=_creation_size, grad=False, values=False),
    Spec("bernoulli", domain="unit", grad=False, values=False),
    Spec("multinomial", domain="positive", args=_multinomial, grad=False, values=False,
         shapes="matrix"),
    # indexing
    Spec("Tensor.__getitem__", args=_getitem),
    Spec("Tensor.__setitem__", args=_setitem, grad=False),
    Spec("gather", args=_gather),
    Spec("scatter", args=_scatter),
    Spec("scatter_add", args=_scatter),
    Spec("index_select", args=_index_select),
    Spec("take_along_dim", args=lambda r, s: {"indices": _index(r, s, len(s[0]) - 1 if s[0] else 0),
                                              "dim": len(s[0]) - 1 if s[0] else None}),
    # shape ops
    Spec("reshape", args=_reshape),
    Spec("Tensor.view", args=_reshape),
    Spec("permute", args=_permute),
    Spec("transpose", args=_two_dims),
    Spec("squeeze", args=_one_dim),
    Spec("unsqueeze", args=_unsqueeze),
    Spec("Tensor.expand", args=_expand),
    Spec("Tensor.repeat", args=_repeat),
    Spec("narrow", args=_narrow),
    Spec("split", args=_split),
    Spec("chunk", args=_split),
    Spec("flatten", args=lambda r, s: {"start_dim": _dim_of(r, s)}),
    Spec("movedim", args=_two_dims),
    Spec("select", args=lambda r, s: {"dim": _dim_of(r, s), "index": r.randrange(-2, 3)}),
    Spec("cat", arity=2, args=_cat),
    Spec("stack", arity=2, args=_cat),
    # bitwise and integer comparison
    Spec("bitwise_and", arity=2, shapes="broadcast", dtype="int64", grad=False),
    Spec("bitwise_or", arity=2, shapes="broadcast", dtype="int64", grad=False),
    Spec("bitwise_xor", arity=2, shapes="broadcast", dtype="int64", grad=False),
    Spec("bitwise_not", dtype="int64", grad=False),
    Spec("bitwise_left_shift", arity=2, domain="positive", dtype="int64", grad=False),
    Spec("bitwise_right_shift", arity=2, domain="positive", dtype="int64", grad=False),
    Spec("logical_and", arity=2, shapes="broadcast", dtype="bool", grad=False),
    Spec("eq", arity=2, shapes="broadcast", dtype="int64", grad=False),
    Spec("lt", arity=2, shapes="broadcast", dtype="int64", grad=False),
    Spec("floor_divide", arity=2, domain="positive", dtype="int64", grad=False),
    Spec("remainder", arity=2, dtype="int64", grad=False),
    # pooling and convolution
    Spec("nn.functional.max_pool1d", args=_pool(1), shapes=_pool_shapes(1)),
    Spec("nn.functional.max_pool2d", args=_pool(2), shapes=_pool_shapes(2)),
    Spec("nn.functional.avg_pool1d", args=_pool(1), shapes=_pool_shapes(1)),
    Spec("nn.functional.avg_pool2d", args=_pool(2), shapes=_pool_shapes(2)),
    Spec("nn.functional.adaptive_avg_pool1d", args=_pool(1, True), shapes=_pool_shapes(1)),
    Spec("nn.functional.adaptive_avg_pool2d", args=_pool(2, True), shapes=_pool_shapes(2)),
    Spec("nn.functional.adaptive_max_pool1d", args=_pool(1, True), shapes=_pool_shapes(1)),
    Spec("nn.functional.conv1d", arity=2, args=_conv_args(1), shapes=_conv_shapes(1)),
    Spec("nn.functional.conv2d", arity=2, args=_conv_args(2), shapes=_conv_shapes(2)),
    # losses with class targets
    Spec("nn.functional.cross_entropy", args=_class_target, shapes=_class_shapes),
    Spec("nn.functional.nll_loss", args=_class_target, shapes=_class_shapes),
]
