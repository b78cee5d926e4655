"""PyTorch's ``out=`` argument for the functions of the ``arraygrad`` namespace.

``torch.mul(a, b, out=c)`` computes the result, then writes it into ``c`` and returns ``c``.
Rather than giving every op an ``out`` parameter, the namespace wraps each op function once
(``accepts_out``) and one writer applies PyTorch's rules: no autograd through ``out=``, the
result must cast safely to ``out``'s dtype, devices must match, and an ``out`` of another shape
is resized (with PyTorch's deprecation warning unless it was empty). Everything is checked before
``out`` is touched.
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.autograd.grad_mode import is_grad_enabled, no_grad
from arraygrad.ops.inplace import before_write
from arraygrad.tensor import Tensor

__all__ = ["accepts_out", "write_out", "resize_", "resize_as_"]


def accepts_out(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` taking an ``out=`` keyword too (``fn`` itself if it has one already, or if it
    returns no tensors: ``is_nonzero``, ``result_type``...)."""
    returns = str(getattr(fn, "__annotations__", {}).get("return", "Tensor"))
    if "Tensor" not in returns and "Any" not in returns:
        return fn
    code = getattr(fn, "__code__", None)  # read directly: inspect.signature is slow at import
    if code is None:
        return fn
    if "out" in code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]:
        return fn

    @functools.wraps(fn)
    def with_out(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        return write_out(fn.__name__, fn(*args, **kwargs), out)

    return with_out


def write_out(name: str, result: Any, out: Any) -> Any:
    """Write ``result`` (a tensor, or a tuple of them) into ``out``; return ``out``."""
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(result)} Tensors")
        pairs = list(zip(result, out))
    elif isinstance(result, Tensor):
        pairs = [(result, out)]
    else:
        raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
    for res, dst in pairs:
        _check(name, res, dst)
    for res, dst in pairs:
        _write(res, dst)
    if isinstance(result, tuple):
        written = tuple(dst for _, dst in pairs)
        return type(result)(*written) if hasattr(result, "_fields") else written
    return out


def _check(name: str, result: Any, out: Any) -> None:
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    before_write(out)
    if is_grad_enabled() and (result.requires_grad or out.requires_grad):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")
    if out.device != result.device:
        raise RuntimeError(f"{name}(): Expected out tensor to have device {result.device}, but "
                           f"got {out.device} instead")
    if result.dtype.category > out.dtype.category:
        raise RuntimeError(f"{name}(): result type {_dt.scalar_type_name(result.dtype)} can't be "
                           f"cast to the desired output type {_dt.scalar_type_name(out.dtype)}")
    if tuple(out.shape) != tuple(result.shape) and out._base is not None:
        raise RuntimeError(f"{name}(): out= is a view of shape {list(out.shape)}; the result has "
                           f"shape {list(result.shape)} and a view cannot be resized")


def _write(result: Tensor, out: Tensor) -> None:
    if tuple(out.shape) != tuple(result.shape):
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can "
                "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                "t.resize_(0).", UserWarning, stacklevel=4)
        _set_shape(out, tuple(result.shape))
    with no_grad():
        out.copy_(result)


def _set_shape(t: Tensor, shape: tuple[int, ...]) -> None:
    """Give ``t`` (not a view) ``shape``, keeping its leading elements in row-major order and
    zero-filling new ones (PyTorch leaves those uninitialised)."""
    xp = t._backend.xp
    flat = xp.reshape(t._data, (-1,))
    n = math.prod(shape)
    if n <= flat.shape[0]:
        flat = flat[:n]
    else:
        flat = xp.concat([flat, xp.zeros((n - flat.shape[0],), dtype=flat.dtype)])
    t._data = xp.reshape(flat, shape)
    t._strides = None
    t._bump_version()


def resize_(self: Tensor, *sizes: Any, size: Any = None, memory_format: Any = None) -> Tensor:
    """Give ``self`` the shape ``sizes`` (or ``size=``) in place (``Tensor.resize_``): leading
    elements are kept in row-major order, new ones are zero (PyTorch leaves them
    uninitialised)."""
    if size is not None:
        if sizes:
            raise TypeError("resize_() got multiple values for argument 'size'")
        sizes = (size,)
    shape = tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes
    if not all(isinstance(s, int) and s >= 0 for s in shape):
        raise RuntimeError(f"resize_: sizes must be non-negative integers, got {list(shape)}")
    before_write(self)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if self._base is not None and tuple(shape) != tuple(self.shape):
        raise RuntimeError("resize_: cannot resize a view of another tensor (arraygrad views "
                           "do not own their storage)")
    if tuple(shape) != tuple(self.shape):
        _set_shape(self, tuple(shape))
    return self


def resize_as_(self: Tensor, the_template: Tensor, memory_format: Any = None) -> Tensor:
    """``self.resize_(the_template.shape)``."""
    return resize_(self, tuple(the_template.shape))
