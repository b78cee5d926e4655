"""``nn.utils.prune``: zero out parts of a module's tensors, as ``torch.nn.utils.prune``.

Pruning ``module.weight`` moves the parameter to ``weight_orig``, registers the buffer
``weight_mask`` (1 keeps an entry, 0 prunes it) and makes ``weight`` a plain attribute
``weight_orig * weight_mask``, recomputed before each ``forward`` by a forward pre-hook (the
pruning method itself): PyTorch's design, so the ``state_dict`` keys are PyTorch's
(``weight_orig``, ``weight_mask``) and gradients reach ``weight_orig`` through the mask.
Pruning the same tensor again combines the methods in a ``PruningContainer`` (each new mask
computed on the entries, or channels, still unpruned); ``remove`` makes the pruning
permanent.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from typing import Any

from arraygrad.creation import ones_like, rand, rand_like, zeros_like
from arraygrad.tensor import Tensor

__all__ = ["BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured",
           "L1Unstructured", "RandomStructured", "LnStructured", "CustomFromMask", "identity",
           "random_unstructured", "l1_unstructured", "random_structured", "ln_structured",
           "global_unstructured", "custom_from_mask", "remove", "is_pruned"]


class BasePruningMethod(ABC):
    """A pruning method: ``compute_mask`` says which entries to keep; ``apply`` prunes a
    module's tensor with it. An instance is the forward pre-hook that recomputes the pruned
    tensor from ``<name>_orig`` and ``<name>_mask``."""

    _tensor_name: str
    PRUNING_TYPE: str

    def __call__(self, module: Any, inputs: Any) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The new mask of ``t`` (ones to keep), starting from ``default_mask``."""

    def apply_mask(self, module: Any) -> Tensor:
        """``<name>_orig * <name>_mask``: the pruned tensor."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module: Any, name: str, *args: Any, importance_scores: Tensor | None = None,
              **kwargs: Any) -> Any:
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (ranking entries by
        ``importance_scores`` when given, else by the tensor itself); returns the method,
        a ``PruningContainer`` when the tensor was pruned before."""
        old_keys, old_method = _existing_method(module, name)
        method = cls(*args, **kwargs)
        method._tensor_name = name
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(
                    f"importance_scores should have the same shape as parameter {name} of "
                    f"{module}, got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        # the mask first: nothing changes on error (a container's mask is its last method's)
        if old_method is None:
            mask = method.compute_mask(importance_scores, default_mask=ones_like(orig))
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
            mask = PruningContainer(method).compute_mask(importance_scores, default_mask)
        for k in old_keys:
            del module._forward_pre_hooks[k]
        if old_method is None:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
        elif isinstance(old_method, PruningContainer):
            old_method.add_pruning_method(method)
            method = old_method
        else:
            container = PruningContainer(old_method)
            container.add_pruning_method(method)
            method = container
        module.register_buffer(name + "_mask", mask)
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(method)
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None,
              importance_scores: Tensor | None = None) -> Tensor:
        """``t`` pruned by this method's mask (no module involved)."""
        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(f"importance_scores should have the same shape as tensor "
                                     f"t, got {importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module: Any) -> None:
        """Make the pruning permanent: ``<name>`` becomes the parameter again, holding the
        pruned values; ``_orig``, ``_mask`` (and this hook, by ``prune.remove``) go."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _existing_method(module: Any, name: str) -> tuple[list[Any], BasePruningMethod | None]:
    """The hook keys and the pruning method already pruning ``module.<name>``, if any."""
    found = [(k, hook) for k, hook in module._forward_pre_hooks.items()
             if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(found) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    return [k for k, _ in found], (found[0][1] if found else None)


class PruningContainer(BasePruningMethod):
    """The pruning methods applied in turn to one tensor; its mask is the last method's,
    computed on what the earlier ones left."""

    def __init__(self, *args: Any) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod | None) -> None:
        """Append ``method`` (it must prune the same tensor)."""
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and getattr(self, "_tensor_name", None) != method._tensor_name:
            raise ValueError(
                "Can only add pruning methods acting on the parameter named "
                f"'{getattr(self, '_tensor_name', None)}' to PruningContainer {self}. Found "
                f"'{method._tensor_name}'")
        self._pruning_methods += (method,)  # type: ignore[operator]

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self) -> Any:
        return iter(self._pruning_methods)

    def __getitem__(self, idx: Any) -> Any:
        return self._pruning_methods[idx]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The last method's mask over the entries (``"unstructured"``), the channels
        (``"structured"``) or everything (``"global"``) ``default_mask`` keeps."""
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        slc: Any
        if method.PRUNING_TYPE == "unstructured":
            slc = default_mask == 1
        elif method.PRUNING_TYPE == "structured":
            if not hasattr(method, "dim"):
                raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to '
                                     "have the attribute `dim` defined.")
            n_dims = t.dim()
            dim = method.dim
            if dim < 0:
                dim = n_dims + dim
            if dim < 0:
                raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
            keep_channel = default_mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
            parts: list[Any] = [slice(None)] * n_dims
            parts[dim] = keep_channel
            slc = tuple(parts)
        elif method.PRUNING_TYPE == "global":
            slc = tuple([slice(None)] * len(t.shape))
        else:
            raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
        partial_mask = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
        return new_mask


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones): the pruning machinery on an unchanged tensor."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask`` unchanged."""
        return default_mask

    @classmethod
    def apply(cls, module: Any, name: str) -> Any:  # type: ignore[override]
        """Add the identity pruning to ``module.<name>``."""
        return super().apply(module, name)


def _unstructured_mask(amount: int | float, t: Tensor, default_mask: Tensor,
                       scores: Callable[[], Tensor], largest: bool) -> Tensor:
    """A copy of ``default_mask`` with the ``amount`` entries whose ``scores()`` (drawn only
    when something is pruned) are the largest (or smallest) set to 0."""
    tensor_size = t.nelement()
    nparams_toprune = _prune_count(amount, tensor_size)
    mask = default_mask.clone()
    if nparams_toprune != 0:
        topk = scores().reshape(-1).topk(nparams_toprune, largest=largest)
        flat = mask.reshape(-1).clone()
        flat[topk.indices] = 0
        mask = flat.reshape(tuple(mask.shape))
    return mask


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` (a count, or a fraction in [0, 1]) of the unpruned entries, chosen
    at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask`` with ``amount`` random entries zeroed."""
        return _unstructured_mask(self.amount, t, default_mask, lambda: rand_like(t), True)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float) -> Any:  # type: ignore[override]
        """Prune ``module.<name>`` at random."""
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes ``amount`` of the unpruned entries with the smallest absolute values."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount: int | float) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask`` with the ``amount`` smallest ``|t|`` zeroed."""
        return _unstructured_mask(self.amount, t, default_mask, t.abs, False)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float,  # type: ignore[override]
              importance_scores: Tensor | None = None) -> Any:
        """Prune ``module.<name>`` by magnitude (of ``importance_scores`` when given)."""
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


def _structured_count(t: Tensor, dim: int, amount: int | float) -> tuple[int, int]:
    """The number of channels of ``t`` along ``dim`` and how many of them to prune (errors
    for a 1-d ``t``, a bad ``dim`` or too large an ``amount``)."""
    _validate_structured_pruning(t)
    _validate_pruning_dim(t, dim)
    tensor_size = t.shape[dim]
    return tensor_size, _prune_count(amount, tensor_size)


def _channel_mask(t: Tensor, dim: int, keep: Tensor, default_mask: Tensor) -> Tensor:
    """``default_mask`` times ones on the channels of ``dim`` that ``keep`` selects (a bool
    mask or indices)."""
    mask = zeros_like(t)
    slc: list[Any] = [slice(None)] * len(t.shape)
    slc[dim] = keep
    mask[tuple(slc)] = 1
    return mask * default_mask.to(dtype=mask.dtype)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask`` times a mask zeroing ``amount`` random channels."""
        tensor_size, nparams_toprune = _structured_count(t, self.dim, self.amount)
        if nparams_toprune == 0:
            return default_mask
        prob = rand(tensor_size)
        threshold = prob.kthvalue(nparams_toprune).values
        return _channel_mask(t, self.dim, prob > threshold, default_mask)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float,  # type: ignore[override]
              dim: int = -1) -> Any:
        """Prune random channels of ``module.<name>``."""
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim`` with the smallest ``n``-norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount: int | float, n: Any, dim: int = -1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask`` times a mask keeping the channels of largest norm."""
        tensor_size, nparams_toprune = _structured_count(t, self.dim, self.amount)
        if nparams_toprune == 0:
            return default_mask
        nparams_tokeep = tensor_size - nparams_toprune
        topk = _compute_norm(t, self.n, self.dim).topk(nparams_tokeep, largest=True)
        return _channel_mask(t, self.dim, topk.indices, default_mask)

    @classmethod
    def apply(cls, module: Any, name: str, amount: int | float, n: Any,  # type: ignore[override]
              dim: int, importance_scores: Tensor | None = None) -> Any:
        """Prune the channels of ``module.<name>`` of smallest norm."""
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given ``mask`` is 0."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """``default_mask * mask``."""
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module: Any, name: str, mask: Tensor) -> Any:  # type: ignore[override]
        """Prune ``module.<name>`` where ``mask`` is 0."""
        return super().apply(module, name, mask=mask)


def identity(module: Any, name: str) -> Any:
    """Apply the pruning machinery to ``module.<name>`` without pruning anything."""
    Identity.apply(module, name)
    return module


def random_unstructured(module: Any, name: str, amount: int | float) -> Any:
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module: Any, name: str, amount: int | float,
                    importance_scores: Tensor | None = None) -> Any:
    """Prune the ``amount`` entries of ``module.<name>`` of smallest magnitude."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module: Any, name: str, amount: int | float, dim: int) -> Any:
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module: Any, name: str, amount: int | float, n: Any, dim: int,
                  importance_scores: Tensor | None = None) -> Any:
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` of smallest
    ``n``-norm."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters: Iterable[tuple[Any, str]], pruning_method: type,
                        importance_scores: dict[Any, Tensor] | None = None,
                        **kwargs: Any) -> None:
    """Prune the ``(module, name)`` tensors together: ``pruning_method`` (unstructured)
    ranks all their entries at once, then each tensor gets its part of the mask."""
    from arraygrad.nn.utils.convert_parameters import parameters_to_vector

    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name))
         for module, name in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name)))
         for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num_param].view_as(param))
        pointer += num_param


def custom_from_mask(module: Any, name: str, mask: Tensor) -> Any:
    """Prune ``module.<name>`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module: Any, name: str) -> Any:
    """Make the pruning of ``module.<name>`` permanent (see ``BasePruningMethod.remove``)."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module: Any) -> bool:
    """Whether ``module`` or any of its sub-modules has a pruned tensor."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


def _validate_pruning_amount_init(amount: Any) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if ((isinstance(amount, numbers.Integral) and int(amount) < 0)
            or (not isinstance(amount, numbers.Integral)
                and (float(amount) > 1.0 or float(amount) < 0.0))):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _validate_pruning_amount(amount: Any, tensor_size: int) -> None:
    if isinstance(amount, numbers.Integral) and int(amount) > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to "
                         f"prune={tensor_size}")


def _validate_structured_pruning(t: Tensor) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {shape} with {len(shape)} dims")


def _prune_count(amount: Any, tensor_size: int) -> int:
    """How many of ``tensor_size`` entries ``amount`` prunes (ValueError when too many)."""
    nparams_toprune = _compute_nparams_toprune(amount, tensor_size)
    _validate_pruning_amount(nparams_toprune, tensor_size)
    return nparams_toprune


def _compute_nparams_toprune(amount: Any, tensor_size: int) -> int:
    if isinstance(amount, numbers.Integral):
        return int(amount)
    return round(amount * tensor_size)


def _validate_pruning_dim(t: Tensor, dim: int) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t: Tensor, n: Any, dim: int) -> Tensor:
    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    return t.norm(p=n, dim=dims)
