"""A tensor's bytes as a backend buffer: its own memory when the backend accepts it
(NumPy: the array itself, written in place), else a contiguous host copy written back."""

from __future__ import annotations

from typing import Any

from arraygrad.distributed.backend import ProcessGroupBackend
from arraygrad.tensor import Tensor

__all__ = ["Buffer", "host_empty"]


class Buffer:
    """``array``: what the backend reads or writes for ``tensor``; ``commit()`` after writing."""

    def __init__(self, tensor: Tensor, comm: ProcessGroupBackend) -> None:
        self.tensor = tensor
        data = tensor._data
        # the tensor's own memory when the backend takes it (NumPy: the host buffer is
        # the array itself; NCCL: the device array): results land in it, no copy, no pickle
        self.direct = comm.accepts(data)
        if self.direct:
            self.array = data
        else:
            self.array = tensor._backend.to_host(data).copy(order="C")

    def write(self, block: Any) -> None:
        """Put ``block`` (host values of the tensor's shape) into the tensor."""
        self.array[...] = block.reshape(self.array.shape)
        self.commit()

    def commit(self) -> None:
        """Make what the backend wrote the tensor's value (a version bump, or a copy back)."""
        if self.direct:
            self.tensor._bump_version()
            return
        from arraygrad.autograd.grad_mode import no_grad
        from arraygrad.creation import as_tensor

        with no_grad():
            self.tensor.copy_(as_tensor(self.array, device=self.tensor.device))


def host_empty(like: Tensor, shape: tuple[int, ...]) -> Any:
    """A contiguous host array of ``shape`` and ``like``'s dtype (scratch for gathers)."""
    native = like._backend.xp.empty(shape, dtype=like._data.dtype)
    return like._backend.to_host(native).copy(order="C")
