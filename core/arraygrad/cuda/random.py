"""``arraygrad.cuda.random``: the CUDA devices' default generators (``torch.cuda.random``).

With a usable CUDA backend these seed and snapshot ``arraygrad``'s per-device default
generators (``cuda:0``, ``cuda:1``...). Without one they answer as PyTorch's CPU build, which
defers the seeding calls until CUDA starts (here: never): seeding does nothing, the
``_all`` getters return ``[]``, and a single device's state or seed is an AssertionError.
"""

from __future__ import annotations

import os
from typing import Any

from arraygrad.cuda import _device

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed"]


def _generator(index: int) -> Any:
    from arraygrad.random import device_generator

    return device_generator(f"cuda:{index}")


def _index(device: Any) -> int:
    return _device.index_of(None if device == "cuda" else device)


def get_rng_state(device: Any = "cuda") -> Any:
    """The default generator's state of CUDA ``device`` (a tensor of bytes, for
    ``set_rng_state``)."""
    _device.require()
    return _generator(_index(device)).get_state()


def get_rng_state_all() -> list[Any]:
    """Every CUDA device's generator state (``[]`` without a usable CUDA backend)."""
    return [get_rng_state(i) for i in range(_device.count())]


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Restore CUDA ``device``'s default generator from ``get_rng_state``'s tensor (nothing
    without a usable CUDA backend, as PyTorch's deferred call)."""
    if _device.usable() is not None:
        _generator(_index(device)).set_state(new_state)


def set_rng_state_all(new_states: Any) -> None:
    """Restore every CUDA device's generator, one state per device."""
    for index, state in enumerate(new_states):
        set_rng_state(state, index)


def manual_seed(seed: int) -> None:
    """Seed the current CUDA device's default generator (nothing without a usable CUDA
    backend)."""
    if _device.usable() is not None:
        _generator(_device.index_of(None)).manual_seed(int(seed))


def manual_seed_all(seed: int) -> None:
    """Seed every CUDA device's default generator."""
    for index in range(_device.count()):
        _generator(index).manual_seed(int(seed))


def _fresh_seed() -> int:
    return int.from_bytes(os.urandom(8), "little") >> 1


def seed() -> None:
    """Seed the current CUDA device's generator non-deterministically."""
    if _device.usable() is not None:
        manual_seed(_fresh_seed())


def seed_all() -> None:
    """Seed every CUDA device's generator with one non-deterministic seed."""
    manual_seed_all(_fresh_seed())


def initial_seed() -> int:
    """The seed the current CUDA device's generator started from."""
    _device.require()
    return _generator(_device.index_of(None)).initial_seed()
