"""``torch.utils.checkpoint``'s switches and helpers: ``set_checkpoint_early_stop``,
``set_checkpoint_debug_enabled``, ``GraphExecGroup``, the device random states
(``DefaultDeviceType``, ``get_device_states``, ``set_device_states``) and
``detach_variable``."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

from arraygrad._pytree import tree_leaves
from arraygrad.random import device_generator
from arraygrad.tensor import Tensor

__all__ = ["set_checkpoint_early_stop", "set_checkpoint_debug_enabled", "GraphExecGroup",
           "DefaultDeviceType", "get_device_states", "set_device_states", "detach_variable",
           "switches", "current", "current_frame"]


class _Switches:
    """Process-wide, as PyTorch's: None defers to the checkpoint's own argument."""

    early_stop: bool | None = None
    debug: bool | None = None


switches = _Switches()


class _Current(threading.local):
    frame: Any = None  # a ``checkpoint._Frame``


current = _Current()


def current_frame() -> Any:
    """The non-reentrant checkpoint whose forward runs in this thread now (innermost): its
    ``_Frame``, or None."""
    return current.frame


@contextlib.contextmanager
def set_checkpoint_early_stop(enable: bool) -> Iterator[None]:
    """Whether the non-reentrant checkpoints made in the block stop their recomputation as
    soon as every saved value is back (the default, True). Only the forward needs to run in
    the block."""
    prev = switches.early_stop
    switches.early_stop = enable
    try:
        yield
    finally:
        switches.early_stop = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled: bool | None) -> Iterator[None]:
    """Override every checkpoint's ``debug`` in the block (None: defer to each one's)."""
    prev = switches.debug
    switches.debug = enabled
    try:
        yield
    finally:
        switches.debug = prev


class GraphExecGroup:
    """Checkpointed regions that backward calls inside one group reach are recomputed at most
    once, however many backward calls there are (they must use disjoint saved values).
    arraygrad's non-reentrant checkpoint keeps each recomputed value until a backward reads
    it, so that holds inside and outside a group; a group still refuses to nest, as
    PyTorch's."""

    _current: GraphExecGroup | None = None

    def __enter__(self) -> GraphExecGroup:
        if GraphExecGroup._current is not None:
            raise RuntimeError("GraphExecGroup contexts cannot be nested. Already inside group "
                               f"{GraphExecGroup._current}")
        GraphExecGroup._current = self
        return self

    def __exit__(self, *args: object) -> None:
        GraphExecGroup._current = None

    @classmethod
    def _get_current_group(cls) -> GraphExecGroup | None:
        return cls._current


class DefaultDeviceType:
    """The device type whose random state a checkpoint saves when no argument is on a
    device (``"cuda"`` by default when arraygrad has a CUDA device, else ``"cpu"``)."""

    _default_device_type: str | None = None

    @staticmethod
    def set_device_type(device: str = "cuda") -> None:
        """Set the default device type."""
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type() -> str:
        """The default device type."""
        if not DefaultDeviceType._default_device_type:
            from arraygrad import cuda

            DefaultDeviceType._default_device_type = "cuda" if cuda.is_available() else "cpu"
        return DefaultDeviceType._default_device_type


def get_device_states(*args: Any) -> tuple[list[int], list[Any]]:
    """The device indices of the tensors among ``args`` (pytrees too) that are not on the
    CPU, and their devices' random states (``get_rng_state``)."""
    ids: list[int] = []
    types: list[str] = []
    for leaf in tree_leaves(args):
        if isinstance(leaf, Tensor) and leaf.device.type not in ("cpu", "meta"):
            ids.append(leaf.get_device())
            types.append(leaf.device.type)
    states = [device_generator(f"{t}:{i}").get_state() for t, i in zip(types, ids)]
    return ids, states


def set_device_states(devices: list[int], states: list[Any], *,
                      device_type: str | None = None) -> None:
    """Restore the random states of ``devices`` (indices of ``device_type``, by default
    ``DefaultDeviceType.get_device_type()``)."""
    if device_type is None:
        device_type = DefaultDeviceType.get_device_type()
    if device_type == "meta":
        return
    for device, state in zip(devices, states):
        device_generator(f"{device_type}:{device}").set_state(state)


def detach_variable(inputs: tuple[Any, ...]) -> tuple[Any, ...]:
    """``inputs`` with each tensor detached, keeping its ``requires_grad`` (non-tensors as
    they are); a tuple only."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for inp in inputs:
        if not isinstance(inp, Tensor):
            out.append(inp)
            continue
        x = inp.detach()
        x.requires_grad = inp.requires_grad
        out.append(x)
    return tuple(out)
