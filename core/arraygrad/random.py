"""Seeded random generation: ``manual_seed``, ``Generator``, one default generator per device."""

from __future__ import annotations

import contextlib
import threading
import warnings
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from arraygrad.device import DeviceLike, as_device, device
from arraygrad import transform_state as _transforms

if TYPE_CHECKING:
    from arraygrad.backends.contract import Backend, Generator as NativeGenerator

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "default_generator",
           "get_rng_state", "set_rng_state", "fork_rng", "thread_safe_generator",
           "generator_of"]

DEFAULT_SEED = 67280421310721  # PyTorch's default seed for a fresh process


class Generator:
    """A seeded random stream for one device, like ``torch.Generator``.

    >>> g = Generator().manual_seed(0)
    >>> a = arraygrad.rand(3, generator=g)
    """

    def __init__(self, device: DeviceLike = "cpu") -> None:
        self._device = as_device(device)
        self._seed = DEFAULT_SEED
        self._native: tuple[Backend, NativeGenerator] | None = None
        self._lock = threading.Lock()

    @property
    def device(self) -> device:
        """The device this stream draws on."""
        return self._device

    def get_offset(self) -> int:
        """PyTorch's Philox offset of CUDA generators; RuntimeError here, as PyTorch's CPU
        generator (no arraygrad generator is counter-based)."""
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int) -> "Generator":
        """See ``get_offset``: RuntimeError."""
        raise RuntimeError("CPU Generator does not use offset")

    def clone_state(self) -> "Generator":
        """A new generator on the same device at the same point of the stream."""
        clone = Generator(self._device)
        clone._restore(self._snapshot())
        return clone

    def graphsafe_get_state(self) -> "Generator":
        """CUDA-graph-safe states (PyTorch's CUDA generators): NotImplementedError, as PyTorch's
        CPU generator."""
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state: "Generator") -> "Generator":
        """See ``graphsafe_get_state``: NotImplementedError."""
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

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

    def get_state(self) -> Any:
        """The stream's state as a CPU tensor of byte values (opaque), for ``set_state``.

        A uint8 tensor, as PyTorch's. The bytes are JSON (``arraygrad.random_state``): a state loaded from a file never
        runs code."""
        from arraygrad import random_state, tensor, uint8

        seed, native = self._snapshot()
        return tensor(list(random_state.encode(seed, native)), dtype=uint8)

    def set_state(self, new_state: Any) -> "Generator":
        """Restore a state ``get_state`` returned; returns self. Anything else (a tensor of
        other bytes, another generator's state for another backend) raises before the stream
        changes: TypeError for a wrong type, RuntimeError for wrong bytes."""
        from arraygrad import random_state
        from arraygrad.tensor import Tensor

        if not isinstance(new_state, Tensor) or new_state.dtype.is_floating_point \
                or new_state.ndim != 1:
            raise TypeError("expected a 1-D integer state tensor from get_state, but got "
                            f"{type(new_state).__name__}")
        values = new_state.tolist()
        if any(not 0 <= v < 256 for v in values):
            raise RuntimeError("set_state: a generator state holds byte values (0..255)")
        try:
            seed, native = random_state.decode(bytes(values))
        except ValueError as e:
            raise RuntimeError(f"set_state: {e}") from None
        if native is None:
            self._restore((seed, None))
            return self
        from arraygrad.backends.registry import backend_for_device

        backend = backend_for_device(self.device)
        if native[0] == "snapshot":
            _, owner, gen = native
            if owner is not backend:
                raise RuntimeError(f"set_state: the state is of the {owner.name!r} backend's "
                                   f"generator, this generator draws on {backend.name!r}")
        else:
            _, name, state = native
            if name != backend.name:
                raise RuntimeError(f"set_state: the state is of the {name!r} backend's "
                                   f"generator, this generator draws on {backend.name!r}")
            gen = backend.make_generator(seed)
            try:
                gen.set_state(state)
            except (TypeError, ValueError, KeyError) as e:
                raise RuntimeError(f"set_state: the {name!r} backend refused the state ({e})") \
                    from None
        self._restore((seed, (backend, gen)))
        return self

    def _snapshot(self) -> tuple[int, tuple[Backend, NativeGenerator] | None]:
        """``(seed, (backend, copy of the native generator) or None)``: a cheap state for
        ``_restore`` (checkpointing replays the random stream of a forward with it)."""
        with self._lock:
            native = self._native
            return self._seed, None if native is None else (native[0], _copy(native[1]))

    def _restore(self, state: tuple[int, tuple[Backend, NativeGenerator] | None]) -> None:
        """Go back to a ``_snapshot`` (the native generator is copied again: a snapshot can
        be restored many times)."""
        seed, native = state
        with self._lock:
            self._seed = seed
            self._native = None if native is None else (native[0], _copy(native[1]))

    def native(self, backend: Backend) -> NativeGenerator:
        """The backend's native generator behind this stream (made on first use)."""
        with self._lock:
            if self._native is None or self._native[0] is not backend:
                self._native = (backend, backend.make_generator(self._seed))
            return self._native[1]


def _copy(native: Any) -> Any:
    """An independent copy of a native generator (its ``copy``; a deep copy for one made
    without the contract's base class)."""
    copier = getattr(native, "copy", None)
    if copier is None:
        import copy

        return copy.deepcopy(native)
    return copier()


_default: dict[device, Generator] = {}


def generator_of(device: DeviceLike = "cpu") -> Generator:
    """The process-wide generator of ``device``."""
    dev = as_device(device)
    gen = _default.get(dev)
    if gen is None:
        gen = _default.setdefault(dev, Generator(dev))
    return gen


default_generator: Generator = generator_of("cpu")
"""The CPU's default generator (``torch.default_generator``): what draws use without a
``generator=``; ``generator_of(device)`` gives another device's."""


def manual_seed(seed: int) -> Generator:
    """Seed every device's default generator; returns the CPU one (as ``torch.manual_seed``)."""
    for gen in list(_default.values()):
        gen.manual_seed(seed)
    cpu = generator_of("cpu")
    cpu.manual_seed(seed)
    _pending_seed[0] = int(seed)
    return cpu


_pending_seed: list[int | None] = [None]


def seed() -> int:
    """Seed the default generators non-deterministically; returns the seed."""
    s = generator_of("cpu").seed()
    manual_seed(s)
    return s


def initial_seed() -> int:
    """The CPU default generator's seed."""
    return generator_of("cpu").initial_seed()


def device_generator(dev: DeviceLike = "cpu") -> Generator:
    """The default generator of ``dev``, seeded by a pending ``manual_seed`` when new (the
    one ``generator_for`` samples from)."""
    d = as_device(dev)
    generator = _default.get(d)
    if generator is None:
        generator = generator_of(d)
        if _pending_seed[0] is not None:
            generator.manual_seed(_pending_seed[0])
    return generator


def get_rng_state(device: DeviceLike = "cpu") -> Any:
    """The default generator's state on ``device`` (the CPU's by default), a tensor of bytes."""
    return device_generator(device).get_state()


def set_rng_state(new_state: Any, device: DeviceLike = "cpu") -> None:
    """Restore the default generator of ``device`` from ``get_rng_state``'s tensor."""
    device_generator(device).set_state(new_state)


def generator_for(backend: Backend, generator: Generator | None = None) -> NativeGenerator:
    """The native generator to sample from on ``backend`` (inside ``vmap``: the innermost
    call's generator, which draws per sample, once for all, or refuses; ``transform_state``)."""
    if generator is None:
        generator = _default.get(backend.device) or device_generator(backend.device)
    draws = _transforms.draws  # a running transform's generator (``transform_state``)
    if draws is not None:
        return draws(generator)
    view = _transforms.hooks.generator_view  # a recording transform's (``transform_state``)
    if view is not None:
        return view(backend, generator)
    return generator.native(backend)


@contextlib.contextmanager
def fork_rng(devices: Iterable[Any] | None = None, enabled: bool = True,
             _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str | None = None) -> Iterator[None]:
    """Context manager restoring the random state on exit: the CPU's always, and that of
    ``devices`` (indices of ``device_type``, default the current accelerator's type, else
    ``cuda``; all of them by default, with PyTorch's warning when there are several).
    ``enabled=False`` forks nothing."""
    if device_type == "meta" or not enabled:
        yield
        return
    # PyTorch's default: the current accelerator's type, else cuda (arraygrad's only
    # accelerator type is cuda, so both are cuda)
    device_type = device_type or "cuda"
    if devices is None:
        count = 0 if device_type == "cpu" else _registry_device_count(device_type)
        if count > 1 and not _fork_rng_warned[0]:
            kind = device_type.upper()
            warnings.warn(
                f"{kind} reports that you have {count} available devices, and you have used "
                f"{_caller} without explicitly specifying which devices are being used. For "
                f"safety, we initialize *every* {kind} device by default, which can be quite "
                f"slow if you have a lot of {kind}s. If you know that you are only making use of "
                f"a few {kind} devices, set the environment variable {kind}_VISIBLE_DEVICES or "
                f"the '{_devices_kw}' keyword argument of {_caller} with the set of devices you "
                "are actually using.", stacklevel=3)
            _fork_rng_warned[0] = True
        devices = list(range(count))
    else:
        devices = list(devices)
    generators = [device_generator("cpu")] + [
        device_generator(d if isinstance(d, device) else f"{device_type}:{int(d)}")
        for d in devices]
    states = [g._snapshot() for g in generators]
    try:
        yield
    finally:
        for generator, state in zip(generators, states):
            generator._restore(state)


_fork_rng_warned = [False]


def _registry_device_count(device_type: str) -> int:
    from arraygrad.backends.registry import device_count

    return device_count(device_type)


def thread_safe_generator() -> Generator | None:
    """The generator for random draws in a DataLoader *thread* worker (PyTorch's thread workers
    each have one); None in the main process and in process workers, which makes draws use
    the default generator. arraygrad's DataLoader workers are processes, so this is None."""
    return None
