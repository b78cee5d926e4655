"""``ReduceOp``: how a collective combines the ranks' values (PyTorch's names)."""

from __future__ import annotations

import enum

__all__ = ["ReduceOp", "reduce_op", "supports_complex"]


class ReduceOp(enum.Enum):
    """A reduction for ``all_reduce``, ``reduce`` and ``reduce_scatter_tensor``.

    ``AVG`` is ``SUM`` divided by the group's size (floating-point tensors only).
    """

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"

    def __repr__(self) -> str:
        return f"<ReduceOp.{self.name}>"


class _DeprecatedReduceOp:
    """``reduce_op``: PyTorch's deprecated spelling of ``ReduceOp`` (a FutureWarning on use)."""

    def __getattr__(self, name: str) -> ReduceOp:
        import warnings

        warnings.warn("`torch.distributed.reduce_op` is deprecated, please use "
                      "`torch.distributed.ReduceOp` instead", FutureWarning, stacklevel=2)
        try:
            return ReduceOp[name]
        except KeyError:
            raise AttributeError(f"reduce_op has no attribute {name!r}") from None


reduce_op = _DeprecatedReduceOp()


def supports_complex(reduceOp: ReduceOp) -> bool:  # noqa: N803 - PyTorch's argument name
    """Whether ``reduceOp`` is defined on complex values (MIN, MAX and PRODUCT are not)."""
    return reduceOp not in (ReduceOp.MAX, ReduceOp.MIN, ReduceOp.PRODUCT)
