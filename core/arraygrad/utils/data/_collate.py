"""``default_collate``: a list of samples -> one batch, recursively by element type."""

from __future__ import annotations

import collections.abc
from typing import Any, Sequence

from arraygrad.tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_ERR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        "found {}")


def _is_array(obj: object) -> bool:
    """A foreign array (NumPy...) by duck typing: the core imports no array library."""
    return not isinstance(obj, Tensor) and hasattr(obj, "shape") and hasattr(obj, "dtype") \
        and hasattr(obj, "__array__")


def default_collate(batch: Sequence[Any]) -> Any:
    """Stack tensors and arrays, make numbers tensors, recurse into dicts, tuples and lists.

    Floats become float64, ints int64, bools bool, strings stay a list; a tuple
    of fields becomes a list of batched fields, as in PyTorch.
    """
    from arraygrad.creation import as_tensor, tensor
    from arraygrad import dtypes
    from arraygrad.ops.shape import stack

    elem = batch[0]
    cls: Any = type(elem)  # rebuilt from its parts below, as PyTorch does
    if isinstance(elem, Tensor):
        return stack(list(batch), 0)
    if _is_array(elem):
        if getattr(elem.dtype, "kind", "") in ("U", "S", "O"):
            raise TypeError(_ERR.format(elem.dtype))
        return stack([as_tensor(b) for b in batch], 0)
    if isinstance(elem, bool):
        return tensor(list(batch), dtype=dtypes.bool)
    if isinstance(elem, float):
        return tensor(list(batch), dtype=dtypes.float64)
    if isinstance(elem, int):
        return tensor(list(batch), dtype=dtypes.int64)
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return cls(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return cls(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed
        try:
            return cls(transposed)
        except TypeError:
            return transposed
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data: Any) -> Any:
    """Without batching: turn foreign arrays into tensors, recursively; leave the rest."""
    from arraygrad.creation import as_tensor

    if _is_array(data):
        return as_tensor(data)
    cls: Any = type(data)  # rebuilt from its converted parts, as PyTorch does
    if isinstance(data, collections.abc.Mapping):
        return cls({k: default_convert(v) for k, v in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return cls(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return cls(default_convert(d) for d in data)
    return data
