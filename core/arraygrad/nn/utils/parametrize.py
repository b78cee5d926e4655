"""``nn.utils.parametrize``: make a module's parameter or buffer a function of other tensors.

``register_parametrization(module, "weight", P)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (or ``original0``, ``original1``, ... when
``P.right_inverse`` splits it) and turns ``weight`` into a property computing
``P(original)`` on each access, so gradients flow to the originals. As in PyTorch the module's
class is swapped for a subclass ``Parametrized<Name>`` holding the property (properties live on
classes), and the ``state_dict`` keys are PyTorch's (``parametrizations.weight.original``).
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator, Sequence

from arraygrad.autograd.grad_mode import no_grad
from arraygrad.nn.modules.container import ModuleDict, ModuleList
from arraygrad.nn.modules.module import Module
from arraygrad.nn.parameter import Parameter
from arraygrad.tensor import Tensor

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized", "cached",
           "type_before_parametrizations", "ParametrizationList",
           "transfer_parametrizations_and_params", "get_swap_module_params_on_conversion",
           "is_traceable_wrapper_subclass"]

_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Within the block, each parametrized tensor is computed once and reused."""
    global _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache.clear()


def _set_original(original: Tensor, value: Tensor) -> None:
    """Make ``original`` hold ``value``'s data (same tensor object: optimizers keep it)."""
    if not isinstance(value, Tensor):
        raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors "
                         f"(list, tuple...). Got {type(value).__name__}")
    with no_grad():
        original.data = value.detach().to(original.dtype) if value.dtype != original.dtype \
            else value.detach().clone()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to its ``original`` tensor(s)."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = tuple(original.shape), original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        as_parameter = isinstance(original, Parameter)
        if isinstance(new, Tensor):
            self.is_tensor = True
            self.ntensors = 1
            if not unsafe and (tuple(new.shape) != original_shape or new.dtype != original_dtype):
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype or "
                    f"shape.\noriginal.dtype: {original_dtype}\nright_inverse(original).dtype: "
                    f"{new.dtype}\noriginal.shape: {original_shape}\n"
                    f"right_inverse(original).shape: {tuple(new.shape)}")
            if new is not original:
                _set_original(original, new)
            self._register_original("original", original, as_parameter)
        else:
            if not isinstance(new, (list, tuple)):
                raise ValueError(f"'right_inverse' must return a Tensor or a Sequence of tensors "
                                 f"(list, tuple...). Got {type(new).__name__}")
            self.is_tensor = False
            self.ntensors = len(new)
            for i, part in enumerate(new):
                if not isinstance(part, Tensor):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got "
                                     f"element {i} of type {type(part).__name__}")
                tensor = part.detach().clone()
                if as_parameter:
                    tensor = Parameter(tensor, original.requires_grad)
                self._register_original(f"original{i}", tensor, as_parameter)
        if not unsafe:
            out = self()
            if not isinstance(out, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(out).__name__}.")
            if tuple(out.shape) != original_shape or out.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    f"tensor, unless `unsafe` flag is enabled.\nunparametrized dtype: "
                    f"{original_dtype}\nparametrized dtype: {out.dtype}\nunparametrized shape: "
                    f"{original_shape}\nparametrized shape: {tuple(out.shape)}")

    def _register_original(self, name: str, tensor: Tensor, as_parameter: bool) -> None:
        if as_parameter:
            if not isinstance(tensor, Parameter):
                tensor = Parameter(tensor, tensor.requires_grad)
            self.register_parameter(name, tensor)
        else:
            self.register_buffer(name, tensor)

    def right_inverse(self, value: Tensor) -> None:
        """Set the originals so that the parametrized tensor becomes ``value``."""
        with no_grad():
            for module in reversed(list(self)):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                original = self.original
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                if tuple(value.shape) != tuple(original.shape) or value.dtype != original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} and "
                        f"shape {tuple(value.shape)}, while `original` has dtype "
                        f"{original.dtype} and shape {tuple(original.shape)}")
                _set_original(original, value)
            else:
                if not isinstance(value, (list, tuple)) or len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of "
                                     f"{self.ntensors} tensors")
                for i, part in enumerate(value):
                    _set_original(getattr(self, f"original{i}"), part)

    def forward(self) -> Tensor:
        """The parametrized tensor, computed from the originals."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _inject_new_class(module: Module) -> None:
    """Give ``module`` its own subclass (``Parametrized<Name>``) to carry the properties."""
    cls = module.__class__

    def getstate(self: Any) -> Any:
        raise RuntimeError("Serialization of parametrized modules is only supported through "
                           "state_dict().")

    param_cls = type(f"Parametrized{cls.__name__}", (cls,), {"__getstate__": getstate})
    module.__class__ = param_cls


def _inject_property(module: Module, tensor_name: str) -> None:
    def get_parametrized(self: Module) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            key = (id(self), tensor_name)
            if key not in _cache:
                _cache[key] = parametrization()
            return _cache[key]
        return parametrization()

    def set_original(self: Module, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has a parametrization (on ``tensor_name``, when given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Parametrize ``module.<tensor_name>`` by ``parametrization`` (see the module docstring);
    a second registration on the same name chains after the first. Returns ``module``."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got "
                                 f"{type(x).__name__}.")
            if tuple(x.shape) != tuple(y.shape) or x.dtype != y.dtype:
                raise ValueError(
                    "Registering a parametrization may not change the shape or dtype of the "
                    f"tensor, unless the `unsafe` flag is enabled.\nunparametrized dtype: "
                    f"{y.dtype}\nparametrized dtype: {x.dtype}\nunparametrized shape: "
                    f"{tuple(y.shape)}\nparametrized shape: {tuple(x.shape)}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    z = parametrization.right_inverse(x)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(z, Tensor) or tuple(z.shape) != tuple(y.shape) \
                            or z.dtype != y.dtype:
                        raise ValueError("parametrization.right_inverse must return a tensor "
                                         "of the shape and dtype of the parametrized tensor")
        module.parametrizations[tensor_name].append(parametrization)
        module.parametrizations[tensor_name].unsafe |= unsafe
        return module
    if tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        if original is None:
            raise ValueError(f"Module '{module}' has '{tensor_name}' set to None: there is "
                             "nothing to parametrize")
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        module.parametrizations[tensor_name] = parametrizations
        _inject_property(module, tensor_name)
        return module
    raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized "
                     f"element with name '{tensor_name}'")


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Undo the parametrizations of ``tensor_name``: it becomes a plain parameter (or buffer)
    again, holding the current parametrized value (``leave_parametrized``) or the original."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                value = getattr(module, tensor_name)
            _set_original(original, value)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            value = getattr(module, tensor_name).detach().clone()
        if isinstance(parametrizations.original0, Parameter):
            original = Parameter(value, parametrizations.original0.requires_grad)
        else:
            original = value
    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    if isinstance(original, Parameter):
        module.register_parameter(tensor_name, original)
    else:
        module.register_buffer(tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The class of ``module`` before any parametrization was registered."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Give ``to_module`` the parametrizations of ``from_module`` (all, or ``tensor_name``'s)
    and the very original tensors they act on (shared, not copied); a parametrized name
    ``to_module`` lacks is first created as a Parameter of the current value. Returns
    ``to_module``."""
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name)))
            source = from_module.parametrizations[name]
            for param_func in source:
                register_parametrization(to_module, name, param_func)
            target = to_module.parametrizations[name]
            if hasattr(source, "original"):
                target.original = source.original
            else:
                num = 0
                while hasattr(source, f"original{num}"):
                    setattr(target, f"original{num}", getattr(source, f"original{num}"))
                    num += 1
    return to_module


def get_swap_module_params_on_conversion() -> bool:
    """Whether converting a module (``.to``, ``.double``...) swaps its parameter objects
    rather than their data: False, PyTorch's default and arraygrad's only behaviour (the
    parameters stay the same objects, so optimizers holding them stay valid)."""
    return False


def is_traceable_wrapper_subclass(t: object) -> bool:
    """Whether ``t`` is an instance of a Tensor subclass with PyTorch's traceable-wrapper
    protocol (``__tensor_flatten__`` and ``__tensor_unflatten__``)."""
    return (isinstance(t, Tensor) and type(t) is not Tensor
            and hasattr(t, "__tensor_flatten__") and hasattr(t, "__tensor_unflatten__"))


def __getattr__(name: str) -> object:
    """A name PyTorch's ``torch.nn.utils.parametrize`` has and arraygrad lists as absent: AttributeError with the
    reason (``absences.toml``)."""
    from arraygrad.absences import missing_attribute

    raise missing_attribute("torch.nn.utils.parametrize", name, "arraygrad.nn.utils.parametrize")
