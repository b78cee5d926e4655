"""A stand-in for the few torchvision pieces the corpus programs use (not torchvision).

The programs this project compares read MNIST, FashionMNIST or CIFAR-10 through torchvision,
which would download them (and the real torchvision, built against PyTorch's C++ library,
cannot load on arraygrad). This package is put first on ``PYTHONPATH`` by
``tools/programs/compare.py`` for the recipes that name it, on both frameworks alike: its
datasets are synthetic images of the same shape and type, drawn once from a fixed NumPy seed
(class templates plus noise, so a model can learn them), and its transforms and utilities do
what torchvision's do with the ``torch`` that the program imported. Random transforms draw
with ``torch.rand``/``torch.randint`` as torchvision's do, so the shared stream covers them.
"""

from . import datasets, transforms, utils

__version__ = "0.0+standin"
__all__ = ["datasets", "transforms", "utils"]
