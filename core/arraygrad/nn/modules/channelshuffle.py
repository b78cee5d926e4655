"""``ChannelShuffle``: interleave the channels of ``groups`` groups (ShuffleNet)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arraygrad.nn._functional import sampling as S
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """``(N, C, *)``: channels viewed as ``(groups, C / groups)`` and transposed."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        """The input with its channels shuffled."""
        return S.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
