"""The sparse COO names of ``arraygrad`` and of dense tensors: ``sparse_coo_tensor``, ``spmm``,
``smm``, ``hspmm`` and their aliases, and ``Tensor.to_sparse``, ``indices``, ``coalesce``...
on a dense tensor (a sparse tensor's own methods are ``arraygrad.sparse``'s).

The sparse package loads on first use, so ``import arraygrad`` stays as light as it was. On a
dense tensor the sparse queries answer as PyTorch's: ``sparse_dim()`` is 0, ``indices()``
raises its RuntimeError, ``_nnz()`` its NotImplementedError.
"""

from __future__ import annotations

from typing import Any, NoReturn

from arraygrad.tensor import Tensor
from arraygrad.tensor_sparse import sparse_ops

__all__ = ["sparse_coo_tensor", "spmm", "smm", "hspmm", "sspaddmm", "indices_copy",
           "values_copy", "native_norm", "resize_as_sparse_"]


def sparse_coo_tensor(indices: Any = None, values: Any = None, size: Any = None,
                      **kwargs: Any) -> Tensor:
    """A sparse COO tensor (``arraygrad.sparse``): ``values`` at ``indices``."""
    from arraygrad.sparse._creation import sparse_coo_tensor as make

    return make(indices, values, size, **kwargs)


def spmm(input: Tensor, mat2: Tensor, out_dtype: Any = None) -> Tensor:
    """``torch.spmm`` (and ``dsmm``): ``mm``, a sparse operand giving a dense result."""
    from arraygrad.ops.linalg import mm

    return mm(input, mat2, out_dtype=out_dtype)


def smm(input: Tensor, mat2: Tensor) -> Tensor:
    """``input @ mat2`` as a sparse tensor holding the rows ``input`` has entries in."""
    from arraygrad.sparse._products import smm as product

    _sparse_operand("smm", input)
    return product(input, mat2)


def hspmm(mat1: Tensor, mat2: Tensor) -> Tensor:
    """``mat1 @ mat2`` as a hybrid sparse tensor (its rows with entries, dense)."""
    from arraygrad.sparse._products import hspmm as product

    _sparse_operand("hspmm", mat1)
    return product(mat1, mat2)


def sspaddmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1,
             alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * smm(mat1, mat2)``, sparse (``input`` sparse)."""
    from arraygrad.sparse._products import sspaddmm as combined

    return combined(input, mat1, mat2, beta=beta, alpha=alpha)


def native_norm(input: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False,
                dtype: Any = None) -> Tensor:
    """The ``p``-norm of a sparse tensor's elements (PyTorch's sparse norm kernel)."""
    from arraygrad.sparse._reductions import native_norm as norm

    return norm(input, p, dim, keepdim, dtype)


def resize_as_sparse_(input: Tensor, the_template: Tensor) -> Tensor:
    """``input.resize_as_sparse_(the_template)``: a sparse tensor resized in place."""
    from arraygrad.sparse._resize import resize_as_sparse_ as resize

    return resize(input, the_template)  # type: ignore[arg-type]


def indices_copy(input: Tensor) -> Tensor:
    """A copy of ``input.indices()`` (coalesced sparse input)."""
    return input.indices().clone()


def values_copy(input: Tensor) -> Tensor:
    """A copy of ``input.values()`` (coalesced sparse input), in the graph."""
    return input.values().clone()


def _sparse_operand(op: str, t: Any) -> None:
    if not getattr(t, "is_sparse", False):
        raise RuntimeError(f"{op}: expected a sparse COO tensor as the sparse operand, got a "
                           "strided tensor")


# -- on a dense tensor --------------------------------------------------------------------

def to_sparse(self: Tensor, sparse_dim: Any = None, **kwargs: Any) -> Tensor:
    """A sparse COO copy of this dense tensor (its non-zero entries)."""
    from arraygrad.sparse._creation import to_sparse as convert

    return convert(self, sparse_dim, **kwargs)


def to_sparse_coo(self: Tensor) -> Tensor:
    """``to_sparse()``: the sparse COO copy."""
    return to_sparse(self)


def sparse_mask(self: Tensor, mask: Tensor) -> Tensor:
    """This tensor's elements at the positions of sparse ``mask``, as a sparse tensor."""
    from arraygrad.sparse._rules import sparse_mask as masked

    return masked(self, mask)


def _strided_error(name: str, what: str = "sparse coordinate tensor") -> Any:
    def method(self: Tensor) -> NoReturn:
        raise RuntimeError(f"{name} expected {what} layout but got Strided")

    method.__name__ = name
    method.__doc__ = f"Only for sparse tensors: a dense one raises PyTorch's RuntimeError."
    return method


def _no_cpu_kernel(name: str) -> Any:
    def method(self: Tensor, *args: Any, **kwargs: Any) -> NoReturn:
        key = "CPU" if self.device.type == "cpu" else self.device.type.upper()
        raise NotImplementedError(f"Could not run 'aten::{name}' with arguments from the "
                                  f"'{key}' backend: a dense (strided) tensor has no {name}")

    method.__name__ = name
    method.__doc__ = f"Only for sparse tensors: a dense one raises PyTorch's NotImplementedError."
    return method


def sparse_dim(self: Tensor) -> int:
    """0: a dense tensor has no sparse dimensions."""
    return 0


def dense_dim(self: Tensor) -> int:
    """Every dimension of a dense tensor is dense."""
    return self.ndim


FUNCTIONS = {"sparse_coo_tensor": sparse_coo_tensor, "spmm": spmm, "dsmm": spmm, "smm": smm,
             "hspmm": hspmm, "hsmm": hspmm, "sspaddmm": sspaddmm, "saddmm": sspaddmm,
             "indices_copy": indices_copy, "values_copy": values_copy,
             "native_norm": native_norm, "resize_as_sparse_": resize_as_sparse_}

METHODS = {"to_sparse": to_sparse, "to_sparse_coo": to_sparse_coo, "sparse_mask": sparse_mask,
           "sparse_dim": sparse_dim, "dense_dim": dense_dim, "smm": smm,
           "indices": _strided_error("indices"), "values": _strided_error("values",
                                                                        "sparse tensor"),
           "coalesce": _strided_error("coalesce"), "is_coalesced": _strided_error("is_coalesced"),
           "_indices": _no_cpu_kernel("_indices"), "_values": _no_cpu_kernel("_values"),
           "_nnz": _no_cpu_kernel("_nnz"), "sspaddmm": sspaddmm,
           "resize_as_sparse_": resize_as_sparse_,
           "sparse_resize_": _no_cpu_kernel("sparse_resize_"),
           "sparse_resize_and_clear_": _no_cpu_kernel("sparse_resize_and_clear_")}


# -- the dense ops' sparse versions, handed to them (``tensor_sparse.sparse_ops``) ----------

def _arithmetic(name: str) -> Any:
    def op(*args: Any, **kwargs: Any) -> Any:
        from arraygrad.sparse import _arithmetic as module

        return getattr(module, name)(*args, **kwargs)

    return op


def _mm(input: Tensor, mat2: Tensor, *, out_dtype: Any = None) -> Tensor:
    from arraygrad.sparse._products import mm

    return mm(input, mat2, out_dtype=out_dtype)


def _matmul(input: Tensor, other: Tensor) -> Tensor:
    from arraygrad.sparse._products import matmul

    return matmul(input, other)


def _sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    from arraygrad.sparse._reductions import tensor_sum

    return tensor_sum(input, dim, keepdim, dtype=dtype)  # type: ignore[arg-type]


def _zeros(size: Any, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    from arraygrad.sparse._creation import empty_sparse

    return empty_sparse(size, dtype, device, requires_grad)


sparse_ops.add, sparse_ops.sub = _arithmetic("add"), _arithmetic("sub")
sparse_ops.mul, sparse_ops.div = _arithmetic("mul"), _arithmetic("div")
sparse_ops.mm, sparse_ops.matmul, sparse_ops.sum, sparse_ops.zeros = _mm, _matmul, _sum, _zeros
