"""Seeded random generation: ``manual_seed``, ``Generator``, one default generator per device."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from arraygrad.device import DeviceLike, as_device, device

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend, Generator as NativeGenerator

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "default_generator"]

DEFAULT_SEED = 67280421310721  # PyTorch's default seed for a fresh process


class Generator:
    """A seeded random stream for one device, like ``torch.Generator``.

    >>> g = Generator().manual_seed(0)
    >>> a = arraygrad.rand(3, generator=g)
    """

    def __init__(self, device: DeviceLike = "cpu") -> None:
        self.device = as_device(device)
        self._seed = DEFAULT_SEED
        self._native: tuple[Backend, NativeGenerator] | None = None
        self._lock = threading.Lock()

    def manual_seed(self, seed: int) -> "Generator":
        """Reset the stream with ``seed``; returns self."""
        seed = int(seed)
        if seed < 0:
            seed += 1 << 64
        with self._lock:
            self._seed = seed
            self._native = None
        return self

    def initial_seed(self) -> int:
        """The seed this stream started from."""
        return self._seed

    def seed(self) -> int:
        """Reseed from a non-deterministic source; returns the new seed."""
        import os

        new = int.from_bytes(os.urandom(8), "little") >> 1
        self.manual_seed(new)
        return new

    def native(self, backend: Backend) -> NativeGenerator:
        """The backend's native generator behind this stream (made on first use)."""
        with self._lock:
            if self._native is None or self._native[0] is not backend:
                self._native = (backend, backend.make_generator(self._seed))
            return self._native[1]


_default: dict[device, Generator] = {}


def default_generator(device: DeviceLike = "cpu") -> Generator:
    """The process-wide generator of ``device``."""
    dev = as_device(device)
    gen = _default.get(dev)
    if gen is None:
        gen = _default.setdefault(dev, Generator(dev))
    return gen


def manual_seed(seed: int) -> Generator:
    """Seed every device's default generator; returns the CPU one (as ``torch.manual_seed``)."""
    for gen in list(_default.values()):
        gen.manual_seed(seed)
    cpu = default_generator("cpu")
    cpu.manual_seed(seed)
    _pending_seed[0] = int(seed)
    return cpu


_pending_seed: list[int | None] = [None]


def seed() -> int:
    """Seed the default generators non-deterministically; returns the seed."""
    s = default_generator("cpu").seed()
    manual_seed(s)
    return s


def initial_seed() -> int:
    """The CPU default generator's seed."""
    return default_generator("cpu").initial_seed()


def generator_for(backend: Backend, generator: Generator | None = None) -> NativeGenerator:
    """The native generator to sample from on ``backend``."""
    if generator is None:
        dev = backend.device
        generator = _default.get(dev)
        if generator is None:
            generator = default_generator(dev)
            if _pending_seed[0] is not None:
                generator.manual_seed(_pending_seed[0])
    return generator.native(backend)
