"""The small header every collective exchanges first: each rank's tensor shape and dtype
(and whether its local checks passed), so a mismatch is reported on every rank instead of
mixing bytes, and a rank whose arguments are wrong does not leave the others waiting."""

from __future__ import annotations

from array import array
from typing import Any

from arraygrad.distributed.backend import ProcessGroupBackend
from arraygrad.distributed.errors import DistBackendError

__all__ = ["agree", "encode", "describe", "exchange"]

_MAX_DIM = 16
_LEN = 4 + _MAX_DIM  # [failed, root, dtype code, ndim, *shape]
_DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
           "bool", "complex64", "complex128", "uint16", "uint32", "uint64", "bfloat16")


def encode(shape: tuple[int, ...] | None, dtype: Any, root: int = -1,
           failed: bool = False) -> array:
    """The header: shape and dtype (None: no tensor), the root argument, a failure flag."""
    name = str(dtype).rsplit(".", 1)[-1] if dtype is not None else ""
    code = _DTYPES.index(name) if name in _DTYPES else (-1 if dtype is None else 99)
    dims = list(shape or ())
    ndim = len(dims) if shape is not None else -1
    if ndim > _MAX_DIM:  # only the first dims travel; the element count stands for the rest
        count = 1
        for d in dims[_MAX_DIM - 1:]:
            count *= d
        dims = dims[:_MAX_DIM - 1] + [count]
    dims += [0] * (_MAX_DIM - len(dims))
    return array("q", [int(failed), root, code, ndim] + dims)


def describe(h: Any, start: int = 0) -> str:
    """``[2, 3] float32`` for the header at ``start`` in ``h``."""
    ndim = h[start + 3]
    if ndim < 0:
        return "no tensor"
    code = h[start + 2]
    dtype = _DTYPES[code] if 0 <= code < len(_DTYPES) else "another dtype"
    return f"{list(h[start + 4:start + 4 + min(ndim, _MAX_DIM)])} {dtype}"


def exchange(comm: ProcessGroupBackend, mine: array) -> list[array]:
    """Every rank's header (``mine`` on this rank), one per rank, in rank order."""
    every = comm.allgather_header(mine)
    return [every[i * _LEN:(i + 1) * _LEN] for i in range(comm.size)]


def agree(comm: ProcessGroupBackend, call: str, mine: array, error: str | Exception | None,
          what: str = "tensor") -> None:
    """Exchange headers; raise on every rank if one failed its checks or the headers differ.

    This rank's own ``error`` is raised (a message: as a RuntimeError); what it learns of the others is a
    ``DistBackendError`` (a RuntimeError too)."""
    rows = exchange(comm, mine)
    if isinstance(error, Exception):
        raise error
    if error is not None:
        raise RuntimeError(error)
    failed = [r for r, row in enumerate(rows) if row[0]]
    if failed:
        raise DistBackendError(f"{call}: rank(s) {failed} of the group raised an error in their "
                           "arguments' checks; see that rank's error")
    if any(row[1] != rows[0][1] for row in rows):
        raise DistBackendError(f"{call}: the ranks name different roots: "
                           + ", ".join(f"rank {r}: {row[1]}" for r, row in enumerate(rows)))
    if any(row[2:] != rows[0][2:] for row in rows):
        shown = ", ".join(f"rank {r} has {describe(row)}" for r, row in enumerate(rows))
        raise DistBackendError(f"{call}: the {what} differs across ranks in shape or dtype: "
                           f"{shown}")
