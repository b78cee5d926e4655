"""``pad``: constant, reflect, replicate and circular padding, with PyTorch's rules.

Every mode is built from differentiable ops, so gradients of any order come
for free: ``constant`` crops (negative amounts) with a slice and places the
rest in a filled tensor (``index_put``); the other modes are one
``index_select`` per padded dimension, with the source position of each output
position computed once on the host (negative amounts crop there too).
"""

from __future__ import annotations

from typing import Any

from arraygrad import dtypes as _dt
from arraygrad.ops import indexing
from arraygrad.tensor import Tensor

__all__ = ["pad"]

_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_index(size: int, left: int, right: int, mode: str) -> list[Any]:
    """Source positions of each output position for the non-constant modes."""
    if mode == "circular":
        # PyTorch crops first (negative amounts), then wraps around what is left
        start, kept = max(-left, 0), size - max(-left, 0) - max(-right, 0)
        return [start + i % kept for i in range(-max(left, 0), kept + max(right, 0))]
    out = []
    for i in range(-left, size + right):
        if mode == "replicate":
            j = min(max(i, 0), size - 1)
        else:  # reflect: mirror without repeating the edge
            period = 2 * (size - 1)
            j = abs(i) % period if period else 0
            if j >= size:
                j = period - j
        out.append(j)
    return out


def _amounts(pad: Any) -> tuple[Any, ...]:
    """``pad`` as a tuple of ints (PyTorch's TypeError for anything else)."""
    if isinstance(pad, Tensor):
        pad = pad.tolist()
    if not isinstance(pad, (list, tuple)):
        raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, not "
                        f"{type(pad).__name__}")
    out = []
    for i, v in enumerate(pad):
        if isinstance(v, Tensor) and v.ndim == 0 and not v.dtype.is_floating_point:
            v = v.item()
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"pad(): argument 'pad' (position 2) must be tuple of ints, but "
                            f"found element of type {type(v).__name__} at pos {i}")
        out.append(int(v))
    return tuple(out)


def _check_non_constant(input: Tensor, pairs: list[Any], mode: str) -> None:
    """PyTorch's rules for reflect/replicate/circular (all checked before any work)."""
    k = len(pairs)
    if k not in (1, 2, 3) or input.ndim not in (k + 1, k + 2):
        raise NotImplementedError(
            f"Padding size {2 * k} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    shape = list(input.shape)
    if mode == "circular":
        for d, left, right in pairs:
            if left > shape[d] or right > shape[d]:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            kept = shape[d] + min(left, 0) + min(right, 0)
            if shape[d] + left + right < 0 or (kept <= 0 and max(left, right) > 0):
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
        return
    if 0 in shape[1:]:  # dim 0 (batch, or unbatched channels) may be empty
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 "
                           f"batch size and other non-zero dimensions for input, but got: "
                           f"{shape}")
    if mode == "reflect":
        for i, (d, left, right) in enumerate(pairs):
            if left >= shape[d] or right >= shape[d]:
                raise RuntimeError(
                    f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding "
                    f"input dimension, but got: padding ({left}, {right}) at dimension {d} of "
                    f"input {shape}")
    names = "DHW"[3 - k:]
    ordered = pairs[::-1]  # outermost padded dimension first, as PyTorch's message
    out = [shape[d] + left + right for d, left, right in ordered]
    # PyTorch refuses only when every padded size is below one (an empty one alone is allowed)
    if max(out) < 1 or min(out) < 0:
        sizes = ", ".join(f"{c}: {shape[d]}" for c, (d, _, _) in zip(names, ordered))
        outs = ", ".join(f"{c}: {o}" for c, o in zip(names, out))
        raise RuntimeError(f"input ({sizes}) is too small. Calculated output {outs}")


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (left_last, right_last, left_prev, ...)``.

    Modes: ``constant`` (any number of dimensions; ``value`` fills, negative
    amounts crop), and ``reflect``, ``replicate``, ``circular`` (the last 1, 2 or
    3 dimensions of a batched or unbatched input; negative amounts crop).
    """
    amounts = _amounts(pad)
    if len(amounts) % 2 != 0:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(amounts) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           "dimension but got padding length "
                           f"{len(amounts)} and input of dimension {input.ndim}")
    pairs = [(input.ndim - 1 - i, amounts[2 * i], amounts[2 * i + 1])
             for i in range(len(amounts) // 2)]
    if mode not in _MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant":
        return _pad_constant(input, pairs, 0 if value is None else value)
    if value is not None and value != 0:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument.")
    _check_non_constant(input, pairs, mode)
    from arraygrad.creation import tensor

    out = input
    for d, left, right in pairs:
        if left == 0 and right == 0:
            continue
        idx = tensor(_pad_index(out.shape[d], left, right, mode), dtype=_dt.int64,
                     device=input.device)
        out = indexing.index_select(out, d, idx)
    return out


def _pad_constant(input: Tensor, pairs: Any, value: Any) -> Tensor:
    from arraygrad.creation import full

    # negative amounts crop: slice first, then place the rest inside a filled tensor
    shape = list(input.shape)
    for d, left, right in pairs:
        if shape[d] + min(left, 0) + min(right, 0) < 0:
            raise RuntimeError(f"pad: cropping ({left}, {right}) at dimension {d} of input "
                               f"{list(input.shape)} leaves a negative size")
    crop = [slice(None)] * input.ndim
    for d, left, right in pairs:
        crop[d] = slice(max(-left, 0), shape[d] - max(-right, 0))
    cropped = input[tuple(crop)]
    shape = list(cropped.shape)
    place = [slice(None)] * input.ndim
    for d, left, right in pairs:
        lo, hi = max(left, 0), max(right, 0)
        place[d] = slice(lo, lo + shape[d])
        shape[d] += lo + hi
    out = full(tuple(shape), value, dtype=input.dtype, device=input.device)
    return indexing.index_put(out, tuple(place), cropped)
