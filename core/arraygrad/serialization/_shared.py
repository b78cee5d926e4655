"""Which named tensors share memory, as ``safetensors.torch`` finds them: the safetensors
writers refuse overlapping tensors (a file cannot say two names are one memory), and
``save_model``/``load_model`` keep one name of each group, as safetensors' do.

Tensors share when they are in one allocation of one device (``Backend.memory``) and the
address ranges their elements span overlap; disjoint slices of one allocation do not share.
A backend that gives no addresses shares nothing here."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable

from arraygrad.tensor import Tensor

__all__ = ["shared_groups", "duplicate_names", "shared_memory_error"]


def _memory(t: Tensor) -> Any:
    found = t._backend.memory(t._data)
    return found if found is not None and found.nbytes and t.numel() else None


def _span(t: Tensor, data_ptr: int) -> tuple[int, int]:
    """The first and one-past-last byte address ``t``'s elements touch."""
    size = t.dtype.itemsize
    low = high = data_ptr
    for n, stride in zip(t.shape, t.stride()):
        reach = (n - 1) * stride * size
        low, high = (low + reach, high) if reach < 0 else (low, high + reach)
    return low, high + size


def shared_groups(tensors: dict[str, Tensor]) -> list[set[str]]:
    """The names of ``tensors`` grouped by overlapping memory (groups of one included), in
    address order within each allocation."""
    by_allocation: dict[tuple[str, int, int], list[tuple[int, int, str]]] = defaultdict(list)
    groups: list[set[str]] = []
    for name, t in tensors.items():
        found = _memory(t)
        if found is None:
            groups.append({name})
            continue
        low, high = _span(t, found.data_ptr)
        by_allocation[(str(t.device), found.base_ptr, found.nbytes)].append((low, high, name))
    for areas in by_allocation.values():
        areas.sort()
        last_stop = None
        for start, stop, name in areas:
            if last_stop is not None and start < last_stop:
                groups[-1].add(name)
                last_stop = max(last_stop, stop)
            else:
                groups.append({name})
                last_stop = stop
    return groups


def shared_memory_error(groups: Iterable[set[str]]) -> RuntimeError:
    """safetensors.torch's refusal of tensors that share memory, naming them."""
    listed = ", ".join("{" + ", ".join(repr(n) for n in sorted(g)) + "}" for g in groups)
    return RuntimeError(
        f"Some tensors share memory, this will lead to duplicate memory on disk and potential "
        f"differences when loading them again: [{listed}]. A potential way to correctly save "
        "your model is to use `save_model` (arraygrad.serialization.safetensors.save_model). "
        "More information at https://huggingface.co/docs/safetensors/torch_shared_tensors")


def _complete(t: Tensor) -> bool:
    """Whether ``t`` covers its whole allocation (the name safetensors keeps)."""
    found = _memory(t)
    return (found is not None and found.data_ptr == found.base_ptr
            and t.numel() * t.dtype.itemsize == found.nbytes)


def duplicate_names(state_dict: dict[str, Tensor],
                    preferred_names: Iterable[str] = ()) -> dict[str, list[str]]:
    """For each group of names sharing memory, the name kept (the first in sorted order of
    those covering the whole allocation, a preferred one first) and the names dropped; as
    ``safetensors.torch._remove_duplicate_names``."""
    preferred = set(preferred_names)
    dropped: dict[str, list[str]] = {}
    for group in shared_groups(state_dict):
        if len(group) < 2:
            continue
        complete = {name for name in group if _complete(state_dict[name])}
        if not complete:
            raise RuntimeError(
                "Error while trying to find names to remove to save state dict, but found no "
                f"suitable name to keep for saving amongst: {sorted(group)}. None is covering "
                "the entire storage. Refusing to save/load the model since you could be storing "
                "much more memory than needed. Please refer to "
                "https://huggingface.co/docs/safetensors/torch_shared_tensors for more "
                "information.")
        keep = sorted(preferred & complete or complete)[0]
        dropped[keep] = [name for name in sorted(group) if name != keep]
    return dropped
