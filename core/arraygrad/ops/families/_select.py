"""What sorting, selection and running-extreme ops share: positions picked along a dim.

Such an op computes, on native arrays, which position along ``dim`` each output element
comes from (``idx``, int64, shaped like the output with ``dim`` kept). The values are the
input read at those positions, and the gradient is the output's gradient added back at
them (``index_add_into``, which accumulates where a position is picked twice, as
``cummax`` does). That backward is itself a recorded op whose backward reads at the same
positions again, so double backward works.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

from arraygrad import dtypes as _dt
from arraygrad.ops._linear_index import linear_key
from arraygrad.ops.fast import along_key_on
from arraygrad.ops.indexing import along_dim_key, index_add_into
from arraygrad.ops.reduction import return_types
from arraygrad.ops.rule import VIA_VJP, defop
from arraygrad.tensor import Tensor, _wrap_dim

if TYPE_CHECKING:
    from arraygrad.ops.rule import Rule, RuleNode

__all__ = ["pick_rule", "pick", "named", "wrap_dim", "int64", "moved_last", "restore_last"]


_namedtuple: Any = collections.namedtuple  # called with a computed name


def named(name: str, fields: tuple[str, ...] = ("values", "indices")) -> Any:
    """``torch.return_types.<name>``: a namedtuple, also reachable as
    ``arraygrad.return_types.<name>``."""
    found: Any = getattr(return_types, name, None)
    if found is None:
        found = _namedtuple(name, fields)
        setattr(return_types, name, found)
    return found


def _pick_vjp(grads: Any, n: RuleNode) -> Tensor:
    g = grads[0]  # the indices output has no gradient
    key = n.key
    return index_add_into(g.reshape(tuple(key.lin.shape)), n.self_sym_sizes, key, True)


def pick_rule(name: str) -> Rule:
    """A rule named ``name`` (PyTorch's node name) for an op returning (values, indices)."""
    return defop(name, jvp=VIA_VJP, params=("dim", "keepdim", "self_sym_sizes", "key"), outputs=2,
                 vjp=(_pick_vjp,))


def int64(input: Tensor) -> Any:
    """The backend's native int64 dtype."""
    return input._backend.native_dtype(_dt.int64)


def wrap_dim(dim: Any, input: Tensor, op: str) -> int:
    """``dim`` normalised for ``input`` (0 for a 0-dim input), PyTorch's IndexError if out
    of range; a TypeError when it is not an int."""
    if isinstance(dim, bool) or not isinstance(dim, int):
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    return _wrap_dim(dim, input._data.ndim, op)


def moved_last(xp: Any, data: Any, d: int) -> Any:
    """``data`` (at least 1-D) with axis ``d`` moved last."""
    axes = tuple(i for i in range(data.ndim) if i != d) + (d,)
    return xp.permute_dims(data, axes)


def restore_last(xp: Any, data: Any, d: int) -> Any:
    """The inverse of ``moved_last``."""
    nd = data.ndim
    axes = list(range(nd - 1))
    axes.insert(d, nd - 1)
    return xp.permute_dims(data, tuple(axes))


def pick(rule: Rule, input: Tensor, idx: Any, d: int, keepdim: bool,
         result: Any) -> Any:
    """``result(values, indices)``: ``input`` read at positions ``idx`` along ``d``.

    ``idx``: int64, shaped like the output with ``d`` kept (size 1 for a reduction), over
    ``input`` seen as at least 1-D. ``keepdim=False`` drops ``d`` from both outputs (a
    reduction); the indices keep the input's rank otherwise.
    """
    backend = input._backend
    xp = backend.xp
    shape = tuple(input._data.shape)
    data = input._data if shape else xp.reshape(input._data, (1,))
    base = tuple(data.shape)
    lin: Any = along_key_on(backend, idx, d, base)  # one take_along_axis, lazy positions
    if lin is None:
        lin = linear_key(xp, base, along_dim_key(xp, idx, d, idx.dtype))
    values = lin.take(xp, data)
    indices = idx
    if not shape:  # 0-dim input: 0-dim outputs
        out_shape: tuple[int, ...] = ()
    elif keepdim:
        out_shape = tuple(idx.shape)
    else:
        out_shape = tuple(n for i, n in enumerate(idx.shape) if i != d)
    values = xp.reshape(values, out_shape)
    indices = xp.reshape(indices, out_shape)
    vals, ind = rule.record_many((values, indices), backend, (input,),
                                 differentiable=(True, False), dim=d, keepdim=keepdim,
                                 self_sym_sizes=shape, key=lin)
    return result(vals, ind)
