"""``nn.factory_kwargs``: the ``device``/``dtype``/``memory_format`` keywords of a module's
``**kwargs``, checked, for its factory calls."""

from __future__ import annotations

from typing import Any

__all__ = ["factory_kwargs"]


def factory_kwargs(kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """``kwargs``' factory keywords as one dict (an explicit ``factory_kwargs`` entry merged
    in); TypeError on any other keyword or on one given twice, as PyTorch's."""
    if kwargs is None:
        return {}
    simple_keys = {"device", "dtype", "memory_format"}
    expected_keys = simple_keys | {"factory_kwargs"}
    if not kwargs.keys() <= expected_keys:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected_keys}")
    r = dict(kwargs.get("factory_kwargs", {}))
    for k in simple_keys:
        if k in kwargs:
            if k in r:
                raise TypeError(f"{k} specified twice, in **kwargs and in factory_kwargs")
            r[k] = kwargs[k]
    return r
