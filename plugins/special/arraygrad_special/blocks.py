"""Elementwise kernels in cache-sized blocks: the passes of one block run on scratch buffers
made once per call, so they stay in cache instead of streaming whole arrays from memory
(and faulting fresh temporaries in) on every pass."""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["BLOCK_BYTES", "horner", "in_blocks"]

BLOCK_BYTES = 1 << 18
"""Bytes per block and per buffer (256 KiB: a block's handful of buffers fit in L2)."""


def horner(coefficients: tuple[float | np.floating, ...], v: np.ndarray, out: np.ndarray
           ) -> None:
    """The polynomial (highest degree first) at ``v``, written into ``out`` (not ``v``)."""
    np.multiply(v, coefficients[0], out=out)
    out += coefficients[1]
    for c in coefficients[2:]:
        out *= v
        out += c


def in_blocks(x: np.ndarray, scratch: int,
              kernel: Callable[..., None]) -> np.ndarray:
    """``kernel(x_block, out_block, *scratch_blocks)`` over ``x`` (any shape, any strides) in
    blocks of ``BLOCK_BYTES``: a new array of ``x``'s dtype and shape. ``scratch`` buffers of a
    block's size are made once and handed to every call (cut to the last block's size)."""
    flat = x.reshape(-1)  # 0-d in one dimension: every step of a kernel then yields arrays
    result = np.empty(flat.shape, x.dtype)
    size = flat.size
    block = min(size, BLOCK_BYTES // x.dtype.itemsize)
    buffers = [np.empty(block, x.dtype) for _ in range(scratch)]
    with np.errstate(under="ignore"):  # squares of tiny values: zero is the right value
        for start in range(0, size, block):
            stop = min(size, start + block)
            kernel(flat[start:stop], result[start:stop],
                   *(buf[:stop - start] for buf in buffers))
    return result.reshape(x.shape)
