"""``NamedMemberAccessor`` (``nn.utils.stateless``'s): get, set, delete and swap a module's
parameters, buffers and sub-modules by dotted name (``"encoder.layer.weight"``), as
``functional_call`` does for the duration of a call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Iterator

from arraygrad.tensor import Tensor

if TYPE_CHECKING:
    from arraygrad.nn.modules.module import Module

__all__ = ["NamedMemberAccessor", "MISSING", "set_tensor", "swap_tensor", "swap_submodule"]


class _Missing:
    """Marks a name a module does not have (a swap with it removes the name)."""

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


def _check_name(name: str, kind: str) -> None:
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')


def _check_module(module: Any) -> None:
    from arraygrad.nn.modules.module import Module

    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of arraygrad.nn.Module")


def set_tensor(module: Module, name: str, tensor: Tensor | None) -> None:
    """Put ``tensor`` at ``module.<name>`` (in place of a parameter or buffer as it is)."""
    _check_module(module)
    if not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of arraygrad.Tensor")
    _check_name(name, "tensor")
    if name in module._parameters:
        module._parameters[name] = tensor  # type: ignore[assignment]
    elif name in module._buffers:
        module._buffers[name] = tensor
    else:
        setattr(module, name, tensor)


def swap_tensor(module: Module, name: str, tensor: Any, allow_missing: bool = False) -> Any:
    """Put ``tensor`` (or ``MISSING``: remove) at ``module.<name>``; return what was there
    (``MISSING`` when nothing was, which only ``allow_missing`` permits)."""
    _check_module(module)
    if tensor is not MISSING and not isinstance(tensor, Tensor) and tensor is not None:
        raise TypeError(f"{tensor} is not an instance of arraygrad.Tensor")
    _check_name(name, "tensor")
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is MISSING:
                del store[name]
            else:  # stored directly: a plain tensor stands in for a Parameter
                store[name] = tensor
            return orig
    if hasattr(module, name):
        orig = getattr(module, name)
    elif allow_missing:
        orig = MISSING
    else:
        raise AttributeError(f"{module._get_name()} has no attribute `{name}`")
    if orig is not MISSING and not isinstance(orig, Tensor) and orig is not None:
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of arraygrad.Tensor")
    if tensor is not MISSING:
        setattr(module, name, tensor)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def swap_submodule(module: Module, name: str, submodule: Module) -> Module:
    """Put ``submodule`` at child ``name`` of ``module``; return the child it replaced."""
    _check_module(module)
    _check_module(submodule)
    _check_name(name, "submodule")
    if name not in module._modules:
        raise KeyError(f"submodule {name} does not exist")
    orig = module._modules[name]
    if orig is None:
        raise TypeError(f"{name} attribute is not an instance of arraygrad.nn.Module")
    module._modules[name] = submodule
    return orig


def _same_length(names: Any, values: Any) -> tuple[list[str], list[Any]]:
    names, values = list(names), list(values)
    if len(names) != len(values):
        raise AssertionError(f"names and values must have the same length, got {len(names)} "
                             f"names and {len(values)} values")
    return names, values


class NamedMemberAccessor:
    """Access ``module``'s members by dotted name; sub-modules looked up once (memoised)."""

    def __init__(self, module: Module) -> None:
        self.module = module
        self.memo: dict[str, Module] = {}

    def get_submodule(self, name: str) -> Module:
        """The sub-module at dotted ``name`` (the module itself for ``""``)."""
        from arraygrad.nn.modules.module import Module

        if not name:
            return self.module
        if name not in self.memo:
            prefix, dot, attr = name.rpartition(".")
            module = self.get_submodule(prefix) if dot else self.module
            try:
                submodule = getattr(module, attr)
            except AttributeError as ex:
                raise AttributeError(f"{module._get_name()} has no attribute `{attr}`") from ex
            if not isinstance(submodule, Module):
                raise TypeError(f"submodule `{name}`: {submodule} is not an instance of "
                                "arraygrad.nn.Module")
            self.memo[name] = submodule
        return self.memo[name]

    def swap_submodule(self, path: str, value: Module) -> Module:
        """Replace the sub-module at ``path``; return the old one."""
        prefix, _, attr = path.rpartition(".")
        return swap_submodule(self.get_submodule(prefix), attr, value)

    def get_tensor(self, name: str) -> Tensor | None:
        """The tensor at dotted ``name``."""
        prefix, _, attr = name.rpartition(".")
        submodule = self.get_submodule(prefix)
        try:
            tensor = getattr(submodule, attr)
        except AttributeError as ex:
            raise AttributeError(f"{submodule._get_name()} has no attribute `{name}`") from ex
        if not isinstance(tensor, Tensor) and tensor is not None:
            raise TypeError(f"{tensor} is not an instance of arraygrad.Tensor")
        return tensor

    def set_tensor(self, name: str, value: Tensor) -> None:
        """Put ``value`` at dotted ``name``."""
        prefix, _, attr = name.rpartition(".")
        set_tensor(self.get_submodule(prefix), attr, value)

    def del_tensor(self, name: str) -> None:
        """Delete the tensor at dotted ``name``."""
        prefix, _, attr = name.rpartition(".")
        submodule = self.get_submodule(prefix)
        try:
            delattr(submodule, attr)
        except AttributeError as ex:
            raise AttributeError(f"{submodule._get_name()} has no attribute `{name}`") from ex

    def swap_tensor(self, name: str, value: Any, allow_missing: bool = False) -> Any:
        """Put ``value`` at dotted ``name``; return what was there."""
        prefix, _, attr = name.rpartition(".")
        return swap_tensor(self.get_submodule(prefix), attr, value, allow_missing=allow_missing)

    def get_tensors(self, names: Iterable[str]) -> list[Tensor | None]:
        """The tensors at ``names``."""
        return [self.get_tensor(name) for name in names]

    def set_tensors(self, names: Iterable[str], values: Iterable[Tensor]) -> None:
        """Put each of ``values`` at the matching name."""
        for name, value in zip(*_same_length(names, values)):
            self.set_tensor(name, value)

    def set_tensors_dict(self, named_tensors: dict[str, Tensor]) -> None:
        """Put each tensor at its name."""
        for name, value in named_tensors.items():
            self.set_tensor(name, value)

    def del_tensors(self, names: Iterable[str]) -> None:
        """Delete the tensors at ``names``."""
        for name in names:
            self.del_tensor(name)

    def swap_tensors(self, names: Iterable[str], values: Iterable[Any],
                     allow_missing: bool = False) -> list[Any]:
        """Swap each of ``values`` in at the matching name; the replaced tensors."""
        return [self.swap_tensor(name, value, allow_missing=allow_missing)
                for name, value in zip(*_same_length(names, values))]

    def swap_tensors_dict(self, named_tensors: dict[str, Any], allow_missing: bool = False
                          ) -> tuple[dict[str, Any], list[str]]:
        """Swap every tensor in; ``(replaced tensors by name, names that were missing)``.
        On an error (or a missing name without ``allow_missing``) everything is swapped back."""
        orig_named_tensors: dict[str, Any] = {}
        missing_keys = []
        try:
            for name, tensor in named_tensors.items():
                orig = self.swap_tensor(name, tensor, allow_missing=True)
                if orig is MISSING:
                    missing_keys.append(name)
                orig_named_tensors[name] = orig
        except Exception:
            for name, orig in orig_named_tensors.items():
                self.swap_tensor(name, orig, allow_missing=True)
            raise
        if missing_keys and not allow_missing:
            for name, orig in orig_named_tensors.items():
                self.swap_tensor(name, orig, allow_missing=True)
            raise RuntimeError(f"Missing key(s): {', '.join(map(repr, missing_keys))}.")
        return orig_named_tensors, missing_keys

    def check_keys(self, keys: Iterable[str]) -> tuple[list[str], list[str]]:
        """``(missing, unexpected)``: the module's tensor names not in ``keys``, and the
        reverse, sorted."""
        keys = set(keys)
        valid = {name for name, _ in self.named_tensors(remove_duplicate=False)}
        return sorted(valid - keys), sorted(keys - valid)

    def named_parameters(self, remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """The module's ``named_parameters``."""
        yield from self.module.named_parameters(remove_duplicate=remove_duplicate)

    def named_buffers(self, remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """The module's ``named_buffers``."""
        yield from self.module.named_buffers(remove_duplicate=remove_duplicate)

    def named_tensors(self, remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """Parameters, then buffers."""
        yield from self.module.named_parameters(remove_duplicate=remove_duplicate)
        yield from self.module.named_buffers(remove_duplicate=remove_duplicate)

    def named_modules(self, remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """The module's ``named_modules``."""
        yield from self.module.named_modules(remove_duplicate=remove_duplicate)
