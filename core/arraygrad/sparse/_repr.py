"""A sparse COO tensor's repr, in PyTorch's form::

    tensor(indices=tensor([[0, 1, 1],
                           [2, 0, 2]]),
           values=tensor([3., 4., 5.]),
           size=(2, 3), nnz=3, layout=arraygrad.sparse_coo)
"""

from __future__ import annotations

from arraygrad import dtypes as _dt, tensor_str
from arraygrad.tensor import wrap
from arraygrad.tensor_sparse import SparseTensor

__all__ = ["sparse_repr"]

_PREFIX = "tensor("
_INDENT = len(_PREFIX)


def _part(name: str, array: object, s: SparseTensor) -> str:
    """``indices=tensor([...])`` or ``values=tensor([...])``, continuation lines aligned."""
    t = wrap(array, s._backend)
    head = f"{name}=tensor("
    body = tensor_str.format_body(t, _INDENT + len(head))
    return head + body + (f", size={tuple(t.shape)})" if t.numel() == 0 else ")")


def sparse_repr(s: SparseTensor) -> str:
    """``repr(s)`` as PyTorch prints a sparse COO tensor (the suffixes on their own line)."""
    data = s._data
    body = (_part("indices", data.indices, s) + ",\n" + " " * _INDENT
            + _part("values", data.values, s))
    suffixes = []
    if s.device.type != "cpu":
        suffixes.append(f"device='{s.device}'")
    suffixes += [f"size={tuple(data.shape)}", f"nnz={s._nnz()}"]
    d = s.dtype
    if d is not _dt.get_default_dtype() and d.name not in ("int64", "bool"):
        suffixes.append(f"dtype=arraygrad.{d.name}")
    suffixes.append("layout=arraygrad.sparse_coo")
    if s._grad_fn is not None:
        suffixes.append(f"grad_fn=<{s._grad_fn.name()}>")
    elif s._requires_grad:
        suffixes.append("requires_grad=True")
    width = tensor_str.LINEWIDTH
    out = [_PREFIX + body]
    line = None  # the length of the suffix line being filled; None: start a new one
    for suffix in suffixes:
        if line is None or line + len(suffix) + 2 > width:
            out.append(",\n" + " " * _INDENT + suffix)
            line = _INDENT + len(suffix)
        else:
            out.append(", " + suffix)
            line += len(suffix) + 2
    return "".join(out) + ")"
