"""``arraygrad.array_api``: a differentiable namespace of the Python Array API standard
(2024.12), the one ``Tensor.__array_namespace__()`` returns.

Every function works on arraygrad tensors through arraygrad's own differentiable ops, so
code written only against the standard (array-api-compat, array-api-extra, scikit-learn's
array API dispatch) computes on tensors and gradients flow through it::

    >>> import arraygrad as ag
    >>> x = ag.tensor([1., 2., 3.], requires_grad=True)
    >>> xp = x.__array_namespace__()
    >>> xp.sum(xp.square(x)).backward()
    >>> x.grad
    tensor([2., 4., 6.])

Where the standard and PyTorch differ, this namespace follows the standard (its keywords,
``std(correction=0)``, type promotion of unsigned integers, ``unique_*``...); ``arraygrad``
itself keeps PyTorch's. Every function returns ``Array``, a ``Tensor`` subclass whose
operators (between namespace arrays) and indexing follow the standard too (``_array``).
``docs/array-api.md`` lists the differences.
"""

from __future__ import annotations

from math import e, inf, nan, pi

from arraygrad.dtypes import (
    bool, complex64, complex128, float32, float64, int8, int16, int32, int64, uint8, uint16,
    uint32, uint64,
)
from arraygrad.array_api import fft, linalg
from arraygrad.array_api._array import Array, export as _export, use_functions as _use_functions
from arraygrad.array_api._creation import (
    arange, asarray, empty, empty_like, eye, from_dlpack, full, full_like, linspace, meshgrid,
    ones, ones_like, tril, triu, zeros, zeros_like,
)
from arraygrad.array_api._data_types import astype, finfo, iinfo, isdtype
from arraygrad.array_api._elementwise import BINARY as _BINARY, UNARY as _UNARY
from arraygrad.array_api._elementwise import (
    clip, conj, expm1, floor_divide, imag, real, round, sign, tanh,
)
from arraygrad.array_api._info import __array_namespace_info__
from arraygrad.array_api._manipulation import (
    broadcast_arrays, broadcast_to, concat, expand_dims, flip, moveaxis, permute_dims, repeat,
    reshape, roll, squeeze, stack, tile, unstack,
)
from arraygrad.array_api._promotion import can_cast, result_type
from arraygrad.array_api._searching import (
    argmax, argmin, count_nonzero, nonzero, searchsorted, take, take_along_axis, where,
)
from arraygrad.array_api._sets_sorting import (
    argsort, sort, unique_all, unique_counts, unique_inverse, unique_values,
)
from arraygrad.array_api._statistical import (
    all, any, cumulative_prod, cumulative_sum, diff, max, mean, min, prod, std, sum, var,
)
from arraygrad.array_api.linalg import matmul, matrix_transpose, tensordot, vecdot

__array_api_version__ = "2024.12"
newaxis = None

globals().update(_BINARY)
globals().update(_UNARY)

__all__ = sorted(
    ["__array_api_version__", "__array_namespace_info__", "e", "inf", "nan", "pi", "newaxis",
     "bool", "complex64", "complex128", "float32", "float64", "int8", "int16", "int32",
     "int64", "uint8", "uint16", "uint32", "uint64", "fft", "linalg",
     "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full", "full_like",
     "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros", "zeros_like",
     "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
     "clip", "conj", "expm1", "floor_divide", "imag", "real", "round", "sign", "tanh",
     "broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "moveaxis",
     "permute_dims", "repeat", "reshape", "roll", "squeeze", "stack", "tile", "unstack",
     "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "take",
     "take_along_axis", "where", "argsort", "sort", "unique_all", "unique_counts",
     "unique_inverse", "unique_values", "all", "any", "cumulative_prod", "cumulative_sum",
     "diff", "max", "mean", "min", "prod", "std", "sum", "var",
     "matmul", "matrix_transpose", "tensordot", "vecdot", *_BINARY, *_UNARY])

# every function returns the namespace's array type (``_array``); the submodules' own calls to
# each other stay plain (linalg and fft export theirs the same way, at their ends)
_export(globals(), __all__)
_use_functions(globals())  # the operators of ``Array`` compute with them
