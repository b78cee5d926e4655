"""The tensor handed to the libraries around it: NumPy's array protocol (``__array__`` with
NumPy 2's ``copy``, ``__array_wrap__`` for ufuncs), the ``copy`` module (``__copy__``,
``__deepcopy__``) and ``in``.

What a PyTorch user meets, checked against PyTorch (``tests/ecosystem``):

- ``np.asarray(t)`` shares a CPU tensor's memory, ``np.array(t)`` copies it, and
  ``np.array(t, copy=False)`` shares it or raises NumPy's ValueError where a copy is needed
  (a dtype change, a device); a tensor that requires grad is refused while grad mode is on,
  with PyTorch's message.
- ``np.exp(t)``, ``np.add(t, 1)``: NumPy computes on the tensor's memory and the result comes
  back as a tensor on the tensor's device (``__array_wrap__``), in NumPy's dtype.
- ``copy.copy(t)``: a new leaf of the same class sharing ``t``'s memory, with its
  ``requires_grad`` and its attributes (shallow), but no grad, graph, hooks or version counter
  of its own (what PyTorch's ``__reduce_ex__`` rebuild gives). ``copy.deepcopy(t)``: a copy of
  the memory, the grad and the attributes (deep); refused for non-leaves, as PyTorch.

Nothing here imports NumPy: arrays come from the backend (``to_host``) and go back through
``as_tensor``.
"""

from __future__ import annotations

import copy as _copy
from numbers import Number
from typing import Any

from arraygrad.autograd.grad_mode import _state as _grad_state
from arraygrad.tensor import Tensor

__all__ = ["bind", "METHODS", "AUTOGRAD_STATE", "carried_state"]

_NEEDS_NO_GRAD = ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                  "instead.")

# Instance attributes that are a tensor's place in a graph, not part of what it holds: a copy
# starts without them (a copy is a new leaf), as PyTorch's does.
AUTOGRAD_STATE = frozenset(("_grad", "_output_nr", "_hooks", "_post_acc_hooks", "_acc_ref",
                            "_base", "_view", "_inference", "_fw_grads", "_grad_dtype"))


def carried_state(t: Tensor) -> dict[str, Any]:
    """The instance attributes a copy of ``t`` carries: the user's (``t.name = ...``) and the
    layout, without ``AUTOGRAD_STATE``."""
    return {k: v for k, v in t.__dict__.items() if k not in AUTOGRAD_STATE}


# -- NumPy's array protocol ---------------------------------------------------------------
def __array__(self: Tensor, dtype: Any = None, copy: bool | None = None) -> Any:
    """The data as a NumPy array for ``np.asarray``/``np.array``: shared on the CPU unless
    ``copy=True`` or ``dtype`` differs; ``copy=False`` raises ValueError where it cannot share."""
    if self._requires_grad and _grad_state.enabled:  # as numpy(): it would leave the graph
        raise RuntimeError(_NEEDS_NO_GRAD)
    host = self._backend.to_host(self._data)
    converts = dtype is not None and host.dtype != dtype
    if copy is False and (converts or self._backend.device_type != "cpu"):
        why = (f"reading the {self.dtype} tensor as {dtype}" if converts
               else f"moving a tensor on {self.device} to host memory")
        raise ValueError("Unable to avoid copy while creating an array as requested: "
                         f"{why} needs a copy (np.asarray allows one)")
    if converts:
        return host.astype(dtype)  # a new array already
    if copy:
        return host.copy()
    return host


def __array_wrap__(self: Tensor, array: Any, context: Any = None,
                   return_scalar: bool = False) -> Tensor:
    """A NumPy ufunc's result (``np.exp(t)``) as a tensor on this tensor's device, sharing the
    result's memory on the CPU; 0-d results stay 0-d tensors, as PyTorch's."""
    from arraygrad.creation import as_tensor

    return as_tensor(array, device=self.device)


def to_numpy(self: Tensor) -> Any:
    """``np.asarray(t)``: the name matplotlib's and pandas' unpacking look for (PyTorch's tensors
    are recognised by their class there), so ``plt.hist(t2d)`` plots the columns as with
    PyTorch. Not a PyTorch method (docs/differences.md)."""
    return __array__(self)


# -- the copy module ----------------------------------------------------------------------
def __copy__(self: Tensor) -> Tensor:
    """``copy.copy(t)``: a leaf of ``t``'s class on ``t``'s memory (PyTorch's rebuild)."""
    out = object.__new__(type(self))
    out._init_from(self._data, self._backend)
    out._requires_grad = self._requires_grad  # kept even for a non-leaf, as PyTorch
    out.__dict__.update(carried_state(self))
    return out


def __deepcopy__(self: Tensor, memo: dict[int, Any]) -> Tensor:
    """``copy.deepcopy(t)``: a leaf with a copy of the data, the grad and the attributes."""
    if id(self) in memo:
        return memo[id(self)]
    if self._grad_fn is not None:
        raise RuntimeError(
            "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
            "protocol at the moment.  If you were attempting to deepcopy a module, this may be "
            "because of a torch.nn.utils.weight_norm usage, see "
            "https://github.com/pytorch/pytorch/pull/10300")
    out = object.__new__(type(self))
    memo[id(self)] = out
    fresh = self._detached_copy()
    out._init_from(fresh._data, fresh._backend)
    out._requires_grad = self._requires_grad
    state = carried_state(self)
    state.pop("_strides", None)  # the copy is laid out afresh
    out.__dict__.update(_copy.deepcopy(state, memo))
    if self._grad is not None:
        out._grad = self._grad._detached_copy()
    return out


# -- containment --------------------------------------------------------------------------
def __contains__(self: Tensor, element: Any) -> bool:
    """``x in t``: whether any element of ``t`` equals ``x`` (a number or a broadcastable
    tensor), as PyTorch; other objects raise its RuntimeError."""
    if isinstance(element, (Tensor, Number)):
        found: Any = element == self  # a bool tensor (mypy reads object.__eq__)
        return bool(found.any().item())
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                       f"{type(element)}.")


METHODS = {"__array__": __array__, "__array_wrap__": __array_wrap__, "to_numpy": to_numpy,
           "__copy__": __copy__,
           "__deepcopy__": __deepcopy__, "__contains__": __contains__}


def bind(cls: Any) -> None:
    """Put the protocol methods on ``Tensor``."""
    for name, fn in METHODS.items():
        setattr(cls, name, fn)
