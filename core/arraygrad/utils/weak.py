"""``arraygrad.utils.weak``: PyTorch's ``torch.utils.weak``: weak references and a weak-keyed
dictionary that compare objects by identity (a tensor's ``==`` is elementwise, so
``weakref.WeakKeyDictionary`` cannot key on tensors)."""

from __future__ import annotations

import weakref
from collections.abc import Iterator, MutableMapping
from typing import Any, Callable

__all__ = ["TensorWeakRef", "WeakIdKeyDictionary", "WeakIdRef", "WeakTensorKeyDictionary"]


class WeakIdRef(weakref.ref):
    """A weak reference hashed and compared by the identity of its referent (while alive)."""

    __slots__ = ["_id"]

    def __init__(self, key: Any, callback: Callable[..., Any] | None = None) -> None:
        self._id = id(key)
        super().__init__(key, callback)  # type: ignore[call-arg]

    def __call__(self) -> Any:
        return super().__call__()

    def __hash__(self) -> int:
        return self._id

    def __eq__(self, other: object) -> bool:
        a, b = self(), other() if isinstance(other, WeakIdRef) else None
        if a is not None and b is not None:
            return a is b
        return self is other


class WeakIdKeyDictionary(MutableMapping[Any, Any]):
    """A dictionary whose keys are held weakly and matched by identity; an entry goes when its
    key is collected."""

    def __init__(self, dict: Any = None, ref_type: type = WeakIdRef) -> None:
        self.data: dict[Any, Any] = {}
        self.ref_type = ref_type
        self_ref = weakref.ref(self)

        def remove(k: Any) -> None:
            owner = self_ref()
            if owner is not None:
                owner.data.pop(k, None)

        self._remove = remove
        if dict is not None:
            self.update(dict)

    def __getitem__(self, key: Any) -> Any:
        return self.data[self.ref_type(key)]

    def __setitem__(self, key: Any, value: Any) -> None:
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key: Any) -> None:
        del self.data[self.ref_type(key)]

    def __contains__(self, key: object) -> bool:
        try:
            return self.ref_type(key) in self.data
        except TypeError:
            return False

    def __iter__(self) -> Iterator[Any]:
        for ref in list(self.data):
            obj = ref()
            if obj is not None:
                yield obj

    def __len__(self) -> int:
        return len(self.data)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} at {id(self):#x}>"


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor; calling it gives the tensor, or None once collected."""

    __slots__ = ["ref"]

    def __init__(self, tensor: Any) -> None:
        from arraygrad.tensor import Tensor

        if not isinstance(tensor, Tensor):
            raise AssertionError(f"expected torch.Tensor, got {type(tensor)}.")
        self.ref = weakref.ref(tensor)

    def __call__(self) -> Any:
        return self.ref()
