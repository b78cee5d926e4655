"""torchvision.transforms' common pieces, with torchvision's arithmetic and random draws."""

from __future__ import annotations

import numbers

import numpy as np
from PIL import Image, ImageOps

import torch

__all__ = ["Compose", "ToTensor", "Normalize", "Lambda", "Resize", "Pad", "RandomCrop",
           "RandomHorizontalFlip", "CenterCrop"]


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img


class ToTensor:
    """A PIL image (H, W[, C], uint8) as a float tensor (C, H, W) in [0, 1]."""

    def __call__(self, pic):
        arr = np.asarray(pic)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        # uint8 / 255 in the default dtype, as torchvision's img.to(default dtype).div(255)
        dtype = np.float64 if torch.get_default_dtype() == torch.float64 else np.float32
        scaled = np.ascontiguousarray(arr.transpose(2, 0, 1)).astype(dtype) / dtype(255)
        return torch.from_numpy(scaled)


class Normalize:
    def __init__(self, mean, std, inplace=False):
        self.mean, self.std, self.inplace = mean, std, inplace

    def __call__(self, tensor):
        mean = torch.as_tensor(self.mean, dtype=tensor.dtype)
        std = torch.as_tensor(self.std, dtype=tensor.dtype)
        if mean.ndim == 1:
            mean = mean.view(-1, 1, 1)
        if std.ndim == 1:
            std = std.view(-1, 1, 1)
        tensor = tensor if self.inplace else tensor.clone()
        return tensor.sub_(mean).div_(std)


class Lambda:
    def __init__(self, lambd):
        self.lambd = lambd

    def __call__(self, img):
        return self.lambd(img)


class Resize:
    def __init__(self, size):
        self.size = size

    def __call__(self, img):
        w, h = img.size
        if isinstance(self.size, numbers.Number):
            if (w <= h and w == self.size) or (h <= w and h == self.size):
                return img
            if w < h:
                size = (int(self.size), int(self.size * h / w))
            else:
                size = (int(self.size * w / h), int(self.size))
        else:
            size = (self.size[1], self.size[0])
        return img.resize(size, Image.BILINEAR)


class Pad:
    def __init__(self, padding, fill=0):
        self.padding, self.fill = padding, fill

    def __call__(self, img):
        return ImageOps.expand(img, border=self.padding, fill=self.fill)


class CenterCrop:
    def __init__(self, size):
        self.size = (size, size) if isinstance(size, numbers.Number) else tuple(size)

    def __call__(self, img):
        w, h = img.size
        th, tw = self.size
        i, j = int(round((h - th) / 2.0)), int(round((w - tw) / 2.0))
        return img.crop((j, i, j + tw, i + th))


class RandomCrop:
    """torchvision's draws: ``torch.randint`` for the top, then for the left offset."""

    def __init__(self, size, padding=None):
        self.size = (size, size) if isinstance(size, numbers.Number) else tuple(size)
        self.padding = padding

    def __call__(self, img):
        if self.padding:
            img = ImageOps.expand(img, border=self.padding, fill=0)
        w, h = img.size
        th, tw = self.size
        if w == tw and h == th:
            return img
        i = torch.randint(0, h - th + 1, size=(1,)).item()
        j = torch.randint(0, w - tw + 1, size=(1,)).item()
        return img.crop((j, i, j + tw, i + th))


class RandomHorizontalFlip:
    """torchvision's draw: one ``torch.rand(1)`` per image."""

    def __init__(self, p=0.5):
        self.p = p

    def __call__(self, img):
        if torch.rand(1) < self.p:
            return img.transpose(Image.FLIP_LEFT_RIGHT)
        return img
