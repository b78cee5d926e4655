"""``rearrange``: einops' reader-friendly reshape/transpose/stack (``torch.func.rearrange``).

``"b (h h1) (w w1) c -> b h w (c h1 w1)"``: each side names the tensor's dimensions;
parentheses group several elementary axes into one dimension (lengths given as keywords, at
most one inferred per group), ``...`` stands for the dimensions not named, ``1`` or ``()``
for a dimension of length 1. The tensor is reshaped into its elementary axes, permuted into
the right side's order and reshaped into its groups: recorded ops, so it differentiates.
A list or tuple of tensors is stacked first (the new first dimension).
"""

from __future__ import annotations

import math
import re
from typing import Any, Sequence

from arraygrad.tensor import Tensor

__all__ = ["rearrange"]

_TOKEN = re.compile(r"\.\.\.|\(|\)|[A-Za-z_][A-Za-z0-9_]*|\d+|\S")
_ELLIPSIS = "…"


class RearrangeError(ValueError):
    """A pattern that does not fit the tensor (einops' and PyTorch's ValueError)."""


def _parse(side: str) -> list[list[str]]:
    """A side of the pattern as its dimensions, each a list of elementary axis names
    (``"1"`` and ``()`` give an empty list: a unit dimension; ``...`` is ``[…]``)."""
    dims: list[list[str]] = []
    group: list[str] | None = None
    for token in _TOKEN.findall(side):
        if token == "(":
            if group is not None:
                raise RearrangeError("Axis composition is one-level (brackets inside brackets "
                                     "not allowed)")
            group = []
        elif token == ")":
            if group is None:
                raise RearrangeError("Brackets are not balanced")
            dims.append(group)
            group = None
        elif token == "...":
            if group is not None:
                raise RearrangeError("Ellipsis inside parenthesis is not supported")
            dims.append([_ELLIPSIS])
        elif token.isdigit():
            if token != "1":
                raise RearrangeError(f"Non-unitary anonymous axes are not supported in "
                                     f"rearrange (got {token})")
            if group is None:
                dims.append([])
        elif token.isidentifier():
            if group is None:
                dims.append([token])
            else:
                group.append(token)
        else:
            raise RearrangeError(f"Unknown character '{token}'")
    if group is not None:
        raise RearrangeError("Brackets are not balanced")
    return dims


def _expand(dims: list[list[str]], extra: int) -> list[list[str]]:
    """``dims`` with ``...`` replaced by ``extra`` anonymous axes (one dimension each on the
    left; inside one group on the right, as einops)."""
    out = []
    for d in dims:
        if d == [_ELLIPSIS]:
            out.extend([[f"{_ELLIPSIS}{i}"] for i in range(extra)])
        else:
            out.append(d)
    return out


def rearrange(tensor: Tensor | Sequence[Tensor], pattern: str, **axes_lengths: int) -> Tensor:
    """``tensor`` rearranged by the einops ``pattern`` (see the module docstring).

    >>> rearrange(images, "b h w c -> b (c h w)").shape   # flatten each image
    """
    from arraygrad.ops.shape import stack

    if not isinstance(tensor, Tensor):
        tensor = stack(list(tensor))
    left_text, arrow, right_text = pattern.partition("->")
    if not arrow:
        raise RearrangeError(f"Pattern must contain '->': {pattern!r}")
    left, right = _parse(left_text), _parse(right_text)
    for side in (left, right):
        names = [n for d in side for n in d]
        duplicate = next((n for n in names if names.count(n) > 1), None)
        if duplicate is not None:
            raise RearrangeError(f"Indexing expression contains duplicate dimension "
                                 f"'{duplicate}'")
    has_ellipsis = [[_ELLIPSIS] in side for side in (left, right)]
    if has_ellipsis[1] and not has_ellipsis[0]:
        raise RearrangeError("Ellipsis found in right side, but not left side of a pattern "
                             f"{pattern}")
    named = len(left) - has_ellipsis[0]
    extra = tensor.ndim - named
    if (extra != 0 and not has_ellipsis[0]) or extra < 0:
        raise RearrangeError(f"Number of dimensions in pattern ({named}) must be equal to the "
                             f"number of dimensions in the tensor ({tensor.ndim})")
    left, right = _expand(left, extra), _expand(right, extra)
    left_names = {n for d in left for n in d}
    right_names = {n for d in right for n in d}
    if left_names != right_names:
        raise RearrangeError("Identifiers only on one side of rearrange expression (should be "
                             f"on both): {sorted(left_names ^ right_names)}")
    unknown = [k for k in axes_lengths if k not in left_names]
    if unknown:
        raise RearrangeError(f"Identifiers {unknown} given as lengths are not in the pattern")
    lengths = _axis_lengths(left, tuple(tensor.shape), axes_lengths)
    order = [n for d in left for n in d]
    elementary = tensor.reshape(tuple(lengths[n] for n in order)) if order else tensor.reshape(())
    wanted = [n for d in right for n in d]
    moved = elementary.permute(tuple(order.index(n) for n in wanted)) if wanted else elementary
    return moved.reshape(tuple(math.prod(lengths[n] for n in d) for d in right))


def _axis_lengths(left: list[list[str]], shape: tuple[int, ...],
                  given: dict[str, int]) -> dict[str, int]:
    """Every elementary axis' length: given, or the one unknown of its group inferred."""
    lengths: dict[str, int] = {}
    for dim, size in zip(left, shape):
        known = [n for n in dim if n in given]
        unknown = [n for n in dim if n not in given]
        product = math.prod(given[n] for n in known)
        if len(unknown) > 1:
            raise RearrangeError(f"Could not infer sizes for {set(unknown)}: more than one "
                                 "unknown axis in one group")
        if unknown:
            if product == 0 or size % product:
                raise RearrangeError(f"Shape mismatch, can't divide axis of length {size} in "
                                     f"chunks of {product}")
            lengths[unknown[0]] = size // product
        elif product != size:
            raise RearrangeError(f"Shape mismatch, {product} != {size}")
        lengths.update((n, given[n]) for n in known)
    return lengths
