"""Synthetic MNIST, FashionMNIST and CIFAR-10 (see the package docstring)."""

from __future__ import annotations

import numpy as np
from PIL import Image

import torch

__all__ = ["MNIST", "FashionMNIST", "CIFAR10"]


def _images(n: int, shape: tuple[int, ...], seed: int, template_seed: int) -> tuple:
    """``n`` uint8 images of ``shape`` (H, W[, C]) and their labels 0..9: each class a smooth
    random template, each image its class's template, shifted by up to 2 pixels, plus noise."""
    h, w = shape[:2]
    channels = shape[2:] or (1,)
    trng = np.random.RandomState(template_seed)
    coarse = trng.rand(10, 7, 7, *channels)
    templates = coarse.repeat(-(-h // 7), axis=1).repeat(-(-w // 7), axis=2)[:, :h, :w]
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, size=n)
    shifts = rng.randint(-2, 3, size=(n, 2))
    noise = rng.rand(n, h, w, *channels) * 0.35
    images = np.empty((n, h, w, *channels), dtype=np.float64)
    for i in range(n):
        images[i] = np.roll(templates[labels[i]], tuple(shifts[i]), axis=(0, 1))
    data = np.clip((images * 0.65 + noise) * 255.0, 0, 255).astype(np.uint8)
    if not shape[2:]:
        data = data[..., 0]
    return data, labels


class _Synthetic(torch.utils.data.Dataset):
    """A map-style dataset of synthetic images, as torchvision's (PIL images, int labels)."""

    shape: tuple[int, ...] = (28, 28)
    sizes = {True: 2048, False: 512}
    template_seed = 0
    mode = "L"

    def __init__(self, root: str, train: bool = True, transform=None, target_transform=None,
                 download: bool = False) -> None:
        self.root, self.train = root, train
        self.transform, self.target_transform = transform, target_transform
        self.data, labels = _images(self.sizes[train], self.shape, 1 if train else 2,
                                    self.template_seed)
        self.targets = [int(v) for v in labels]
        self.classes = [str(i) for i in range(10)]

    def __len__(self) -> int:
        return len(self.targets)

    def __getitem__(self, index: int):
        img = Image.fromarray(self.data[index], mode=self.mode)
        target = self.targets[index]
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target


class MNIST(_Synthetic):
    """28x28 grey images, 2,048 to train on and 512 to test."""


class FashionMNIST(_Synthetic):
    """28x28 grey images (other templates than MNIST's)."""
    template_seed = 1


class CIFAR10(_Synthetic):
    """32x32 RGB images, 1,024 to train on and 256 to test."""
    shape = (32, 32, 3)
    sizes = {True: 1024, False: 256}
    template_seed = 2
    mode = "RGB"
