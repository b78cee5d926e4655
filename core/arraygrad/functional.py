"""``arraygrad.functional``: PyTorch's ``torch.functional`` module, the home PyTorch gives some
of its top-level functions (``einsum``, ``split``, ``meshgrid``, ``norm``, ...). Programs import
them from here (``from torch.functional import F``-style); these are the namespace's own
functions."""

from __future__ import annotations

from typing import Any

_NAMES = ("Tensor", "boolean_dispatch", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
          "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
          "norm", "meshgrid", "pca_lowrank", "split", "stft", "svd_lowrank", "tensordot",
          "unique", "unique_consecutive", "unravel_index")

__all__ = list(_NAMES)


def __getattr__(name: str) -> Any:
    """``arraygrad.<name>`` for the names of ``torch.functional`` (the census's reason for one
    arraygrad lacks)."""
    import arraygrad

    if name == "boolean_dispatch":
        from arraygrad.nn.functional import boolean_dispatch

        return boolean_dispatch
    if name in _NAMES:
        try:
            return getattr(arraygrad, name)
        except AttributeError:
            pass
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.functional", name, "arraygrad.functional")
