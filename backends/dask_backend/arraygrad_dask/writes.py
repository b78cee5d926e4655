"""``Backend.write`` for Dask arrays: a new array, the old one unchanged.

Dask's own ``__setitem__`` (on a copy) handles any chunking, but builds its graph through a
general blockwise path: 3 ms per write for a small array, most of a convolution backward's
graph-building time (col2im writes once per kernel offset). An array of one chunk (every array
under Dask's chunk size) needs none of that: the write is one task, the block copied and
written by NumPy, built in microseconds. Larger arrays keep Dask's path.
"""

from __future__ import annotations

from typing import Any

__all__ = ["write"]

_UPDATES = ("set", "add", "multiply")


def write(array: Any, key: Any, values: Any, how: str) -> Any:
    """``array[key] = values`` / ``+=`` / ``*=`` as a new Dask array (``key``: a basic index)."""
    if how not in _UPDATES:
        raise ValueError(f"write: unknown update {how!r} (set, add or multiply)")
    import dask.array as da

    chunked = isinstance(values, da.Array)
    if array.npartitions == 1 and (not chunked or values.npartitions == 1):
        _check_broadcast(array, key, values)  # now, as Dask's path does, not at compute time
        return _one_task(array, key, values, how)
    out = array.copy()  # a new graph node: ``array`` stays as it was
    out[key] = values if how == "set" else _combine(out[key], values, how)
    return out


def _check_broadcast(array: Any, key: Any, values: Any) -> None:
    """Raise NumPy's ValueError unless ``values`` broadcasts to ``array[key]``'s shape."""
    import numpy as np

    # the selection's shape by NumPy's own rules, on a zero-strided stand-in (no memory)
    target = np.broadcast_to(np.empty((), dtype=bool), array.shape)[key].shape
    shape = tuple(getattr(values, "shape", ()))
    while len(shape) > len(target) and shape[0] == 1:  # NumPy drops leading ones
        shape = shape[1:]
    if len(shape) > len(target) or np.broadcast_shapes(shape, target) != target:
        raise ValueError(f"could not broadcast input array from shape {shape} into shape "
                         f"{target}")


def _combine(old: Any, values: Any, how: str) -> Any:
    """The updated values of an ``add`` or ``multiply`` write."""
    return old + values if how == "add" else old * values


def _write_block(block: Any, key: Any, values: Any, how: str) -> Any:
    """The task: a written copy of one (NumPy) block."""
    out = block.copy()
    out[key] = values if how == "set" else _combine(out[key], values, how)
    return out


def _one_task(array: Any, key: Any, values: Any, how: str) -> Any:
    """The write of a one-chunk ``array`` as a single task over its block (and ``values``'s)."""
    import dask.array as da
    from dask.base import tokenize
    from dask.highlevelgraph import HighLevelGraph

    dependencies = [array]
    if isinstance(values, da.Array):
        dependencies.append(values)
        operand = (values.name,) + (0,) * values.ndim
    else:
        operand = values
    name = "arraygrad-write-" + tokenize(array.name, key, operand, how)
    block = (0,) * array.ndim
    task = (_write_block, (array.name, *block), key, operand, how)
    graph: dict[Any, Any] = {(name, *block): task}
    layers = HighLevelGraph.from_collections(name, graph, dependencies=dependencies)
    return da.Array(layers, name, chunks=array.chunks, meta=array._meta)
