"""torchvision.utils.make_grid and save_image (a PNG written with PIL)."""

from __future__ import annotations

import math

import numpy as np
from PIL import Image

import torch

__all__ = ["make_grid", "save_image"]


def make_grid(tensor, nrow=8, padding=2, normalize=False, value_range=None, scale_each=False,
              pad_value=0.0):
    """Images (B, C, H, W) tiled into one (C, H', W') image, as torchvision's."""
    if isinstance(tensor, (list, tuple)):
        tensor = torch.stack(tensor, dim=0)
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)
    if tensor.dim() == 3:
        tensor = tensor.unsqueeze(0)
    if tensor.size(1) == 1:
        tensor = torch.cat((tensor, tensor, tensor), 1)
    tensor = tensor.clone()
    if normalize:
        lo, hi = (float(tensor.min()), float(tensor.max())) if value_range is None else value_range
        tensor = tensor.clamp(min=lo, max=hi).sub(lo).div(max(hi - lo, 1e-5))
    nmaps = tensor.size(0)
    xmaps = min(nrow, nmaps)
    ymaps = int(math.ceil(float(nmaps) / xmaps))
    height, width = int(tensor.size(2) + padding), int(tensor.size(3) + padding)
    grid = torch.full((3, height * ymaps + padding, width * xmaps + padding), pad_value,
                      dtype=tensor.dtype)
    k = 0
    for y in range(ymaps):
        for x in range(xmaps):
            if k >= nmaps:
                break
            grid[:, y * height + padding:(y + 1) * height, x * width + padding:(x + 1) * width] \
                = tensor[k]
            k += 1
    return grid


def save_image(tensor, fp, **kwargs):
    """``make_grid(tensor, **kwargs)`` written as an 8-bit PNG."""
    grid = make_grid(tensor.detach(), **kwargs)
    arr = (grid.mul(255).add(0.5).clamp(0, 255).permute(1, 2, 0).numpy()).astype(np.uint8)
    Image.fromarray(arr).save(fp)
