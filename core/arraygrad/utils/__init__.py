"""``arraygrad.utils``: ``utils.data`` (datasets and loaders), ``utils.checkpoint``, and
PyTorch's other ``torch.utils`` modules (``hooks``, ``dlpack``, ``weak``, ``benchmark``,
``model_zoo``, ``tensorboard``, ``collect_env``), imported on first use."""

from __future__ import annotations

import importlib
from typing import Any

from arraygrad.utils import checkpoint, data
from arraygrad.utils._module_name import set_module
from arraygrad.utils._swap import swap_tensors

__all__ = ["checkpoint", "data", "set_module", "swap_tensors"]

_LAZY = ("hooks", "dlpack", "weak", "benchmark", "model_zoo", "tensorboard", "collect_env",
         "deterministic")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return importlib.import_module(f"arraygrad.utils.{name}")
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.utils", name, "arraygrad.utils")
