"""How tensors cross processes through ``multiprocessing`` queues and pipes: by value. The
reducers (registered with ``multiprocessing``'s ``ForkingPickler``, the DataLoader's own) send a
tensor's host data with its device and ``requires_grad``, and the receiver rebuilds it; PyTorch
moves tensors to shared memory instead, so a receiver's in-place changes are not seen by the
sender here."""

from __future__ import annotations

__all__ = ["init_reductions"]


def init_reductions() -> None:
    """Register the tensor reducers with ``ForkingPickler`` (done when
    ``arraygrad.multiprocessing`` is imported, as in PyTorch; calling again is harmless)."""
    from arraygrad.utils.data._worker import _register_reducers

    _register_reducers()
