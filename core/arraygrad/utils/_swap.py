"""``swap_tensors``: exchange the contents of two tensor objects, each keeping its identity."""

from __future__ import annotations

import copyreg
import weakref
from typing import Any


def swap_tensors(t1: Any, t2: Any) -> None:
    """Make ``t1`` hold what ``t2`` held and the reverse (data, dtype, device, gradient state,
    class and attributes), each object keeping its identity: what ``nn.Module``'s parameter
    swapping uses. Tensors with weak references to them, or of classes with other slots,
    cannot be swapped (RuntimeError)."""
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    t1_slots = set(copyreg._slotnames(t1.__class__))  # type: ignore[attr-defined]
    t2_slots = set(copyreg._slotnames(t2.__class__))  # type: ignore[attr-defined]
    if t1_slots != t2_slots:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")

    def swap_attr(name: str) -> None:
        tmp = getattr(t1, name)
        setattr(t1, name, getattr(t2, name))
        setattr(t2, name, tmp)

    swap_attr("__class__")
    swap_attr("__dict__")
    for slot in t1_slots - {"__weakref__", "__dict__"}:
        if hasattr(t1, slot) and hasattr(t2, slot):
            swap_attr(slot)
        elif hasattr(t1, slot):
            setattr(t2, slot, getattr(t1, slot))
            delattr(t1, slot)
        elif hasattr(t2, slot):
            setattr(t1, slot, getattr(t2, slot))
            delattr(t2, slot)
