"""``gym.spaces.Discrete`` and ``Box``, as far as the programs use them."""

from __future__ import annotations

import numpy as np

__all__ = ["Discrete", "Box", "Space"]


class Space:
    def __init__(self, seed: int = 0) -> None:
        self.np_random = np.random.RandomState(seed)

    def seed(self, seed=None):
        self.np_random = np.random.RandomState(seed)
        return [seed]


class Discrete(Space):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.shape = ()
        self.dtype = np.int64

    def sample(self) -> int:
        return int(self.np_random.randint(self.n))

    def contains(self, x) -> bool:
        return 0 <= int(x) < self.n


class Box(Space):
    def __init__(self, low, high, shape=None, dtype=np.float32) -> None:
        super().__init__()
        shape = tuple(shape) if shape is not None else np.shape(low)
        self.low = np.broadcast_to(np.asarray(low, dtype=dtype), shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=dtype), shape).copy()
        self.shape, self.dtype = shape, dtype

    def sample(self):
        return self.np_random.uniform(self.low, self.high, self.shape).astype(self.dtype)
