"""``Tensor.resize_`` and ``resize_as_`` (written in ``arraygrad.ops.out_arg``, which resizes
``out=`` tensors the same way)."""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.ops.out_arg import resize_, resize_as_

METHODS: dict[str, Callable[..., Any]] = {"resize_": resize_, "resize_as_": resize_as_}
