"""Elementwise kernels in cache-sized blocks: the passes of one block run on scratch buffers
made once per call, so they stay in cache instead of streaming whole arrays from memory
(and faulting fresh temporaries in) on every pass."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

__all__ = ["BLOCK_BYTES", "at_most", "horner", "in_blocks", "two_range_erf", "two_range_erf_of"]

_CLIP: Any = getattr(getattr(np, "_core", None) or np.core, "umath").clip

BLOCK_BYTES = 1 << 18
"""Bytes per block and per buffer (256 KiB: a block's handful of buffers fit in L2)."""


def at_most(a: np.ndarray, bound: float | np.floating, out: np.ndarray) -> None:
    """``minimum(a, bound)`` into ``out`` (NaN kept) as NumPy's clip loop: its float32
    ``minimum`` with a scalar takes a slow loop, 35 us on 65,536 values against 12."""
    _CLIP(a, -np.inf, bound, out=out)


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
    if not size:  # (no block: a zero step would raise, and the registry drop the kernel)
        return result.reshape(x.shape)
    block = min(size, BLOCK_BYTES // x.dtype.itemsize)
    buffers = [np.empty(block, x.dtype) for _ in range(scratch)]
    with np.errstate(under="ignore"):  # squares of tiny values: zero is the right value
        for start in range(0, size, block):
            stop = min(size, start + block)
            kernel(flat[start:stop], result[start:stop],
                   *(buf[:stop - start] for buf in buffers))
    return result.reshape(x.shape)


def two_range_erf(x: np.ndarray, out: np.ndarray, a: np.ndarray, b: np.ndarray, v: np.ndarray,
                  g: np.ndarray, split: float | np.floating,
                  small: tuple[float | np.floating, ...],
                  large: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]
                  ) -> None:
    """erf of block ``x`` into ``out`` (``a``, ``b``, ``v``, ``g``: scratch of its size) on
    ``a = |x|`` in two ranges, the sign put back last (``copysign``):

    - ``a < split``: ``a + a P(a^2)``, ``P`` the coefficients ``small`` (highest degree
      first), computed for every element: a select costs more than these passes, and the
      other elements' values are overwritten;
    - ``a >= split``: ``large(b, w, v, g)`` writes erf of ``b`` (those elements, gathered)
      into ``g``, with ``w`` and ``v`` as scratch (all four of the gathered size); only
      those elements run it, whose ``exp`` is the dearest pass here, and a GELU's inputs
      have few of them (3% to 20%).

    NaN stays NaN: ``at_most`` keeps it, and ``>=`` leaves it out of the gather.
    """
    np.abs(x, out=a)
    at_most(a, split, b)
    np.multiply(b, b, out=v)
    horner(small, v, out)
    out *= b
    out += b
    chosen = np.flatnonzero(a >= split)
    n = chosen.size
    if n:
        np.take(a, chosen, out=b[:n])  # (before a's buffer is scratch)
        large(b[:n], a[:n], v[:n], g[:n])
        out[chosen] = g[:n]
    np.copysign(out, x, out=out)


def two_range_erf_of(dtype: str, split: float | np.floating,
                     small: tuple[float | np.floating, ...],
                     large: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], None]
                     ) -> Callable[[np.ndarray], np.ndarray]:
    """``erf_<dtype>(x)``: ``two_range_erf`` with these ranges over ``x``'s blocks."""
    def block(x: np.ndarray, out: np.ndarray, a: np.ndarray, b: np.ndarray, v: np.ndarray,
              g: np.ndarray) -> None:
        two_range_erf(x, out, a, b, v, g, split, small, large)

    def erf(x: np.ndarray) -> np.ndarray:
        return in_blocks(x, 4, block)

    erf.__name__ = erf.__qualname__ = f"erf_{dtype}"
    erf.__doc__ = (f"erf of {dtype} array ``x`` (any shape, any strides): a new {dtype} "
                   "array.")
    return erf
