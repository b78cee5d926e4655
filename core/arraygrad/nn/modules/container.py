"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict``.

Entries are registered under their position (``"0"``, ``"1"``, ...) or key, so
``parameters()``, ``state_dict()`` and ``repr`` see them like any attribute.
"""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable as _IterableABC, Mapping as _MappingABC
from itertools import chain, islice
from typing import (Any, ItemsView, Iterable, Iterator, KeysView, Mapping, Self, SupportsIndex,
                    ValuesView, cast, overload)

from arraygrad.nn.modules.module import Module, _addindent
from arraygrad.nn.parameter import Parameter
from arraygrad.tensor import Tensor

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _entries(module: Module) -> OrderedDict[str, Module]:
    """A container's sub-modules: None only when a caller registers None itself, as in PyTorch."""
    return cast("OrderedDict[str, Module]", module._modules)


def _index(idx: SupportsIndex, size: int) -> int:
    """A non-negative position for ``idx``; IndexError when out of range."""
    idx = operator.index(idx)
    if not -size <= idx < size:
        raise IndexError(f"index {idx} is out of range")
    return idx % size


class Sequential(Module):
    """Modules applied one after another: ``Sequential(a, b)(x) == b(a(x))``.

    Also accepts one ``OrderedDict`` of named modules. Supports indexing,
    slicing (a new ``Sequential``), ``len``, iteration and ``append``.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    @overload
    def __getitem__(self, idx: slice) -> Self: ...

    @overload
    def __getitem__(self, idx: SupportsIndex) -> Module: ...

    def __getitem__(self, idx: slice | SupportsIndex) -> Self | Module:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        i = _index(idx, len(self))
        return next(islice(_entries(self).values(), i, None))

    def __setitem__(self, idx: SupportsIndex, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self))]
        setattr(self, key, module)

    def __delitem__(self, idx: slice | SupportsIndex) -> None:
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                delattr(self, key)
        else:
            delattr(self, list(self._modules)[_index(idx, len(self))])
        # keep the positional names contiguous, as PyTorch does
        items = list(self._modules.items())
        self._modules = OrderedDict((str(i), m) for i, (_, m) in enumerate(items))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(_entries(self).values())

    def __dir__(self) -> list[str]:
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, module: Module) -> Self:
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Self:
        """Append every module of ``sequential``; returns self."""
        for layer in sequential:
            self.append(layer)
        return self

    def insert(self, index: int, module: Module) -> Self:
        """Insert ``module`` before position ``index``; returns self."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(items))
        return self

    def pop(self, key: int | slice) -> Module:
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        ret = Sequential()
        for layer in chain(self, other):
            ret.append(layer)
        return ret

    def __iadd__(self, other: Sequential) -> Self:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(list(other)):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, other: object) -> int:
        if not isinstance(other, int) or isinstance(other, bool):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and {type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return other

    def __mul__(self, other: int) -> Sequential:
        """The modules repeated ``other`` times (the same module objects, shared)."""
        combined = Sequential()
        for _ in range(self._check_factor(other)):
            for module in self:
                combined.append(module)
        return combined

    def __rmul__(self, other: int) -> Sequential:
        return self.__mul__(other)

    def __imul__(self, other: int) -> Self:
        modules = list(self)
        for _ in range(self._check_factor(other) - 1):
            for module in modules:
                self.append(module)
        return self

    def forward(self, input: Any) -> Any:
        """Each module applied in order."""
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered so their parameters are the parent's (no ``forward``)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self += modules

    @overload
    def __getitem__(self, idx: slice) -> Self: ...

    @overload
    def __getitem__(self, idx: SupportsIndex) -> Module: ...

    def __getitem__(self, idx: slice | SupportsIndex) -> Self | Module:
        if isinstance(idx, slice):
            return type(self)(list(_entries(self).values())[idx])
        return _entries(self)[str(_index(idx, len(self)))]

    def __setitem__(self, idx: SupportsIndex, module: Module) -> None:
        setattr(self, str(_index(idx, len(self))), module)

    def __delitem__(self, idx: slice | SupportsIndex) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_index(idx, len(self))))
        items = list(self._modules.values())
        self._modules = OrderedDict((str(i), m) for i, m in enumerate(items))

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(_entries(self).values())

    def __iadd__(self, modules: Iterable[Module]) -> Self:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        combined = ModuleList()
        for i, module in enumerate(list(self) + list(other)):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self) -> list[str]:
        return [k for k in super().__dir__() if not k.isdigit()]

    def __repr__(self) -> str:
        """As PyTorch: runs of equal entries are shown once, as ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(item) for item in self]
        if not reprs:
            return self._get_name() + "()"
        blocks: list[list[Any]] = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if blocks and blocks[-1][2] == r:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, r])
        lines = []
        for start, end, r in blocks:
            text = f"({start}): {r}" if start == end else f"({start}-{end}): {end - start + 1} x {r}"
            lines.append(_addindent(text, 2))
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``."""
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules = OrderedDict()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def append(self, module: Module) -> Self:
        """Add ``module`` at the end; returns self."""
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: int = -1) -> Module:
        """Remove and return the module at ``key``."""
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> Self:
        """Append every module of the iterable ``modules`` (a Sequential too); returns self."""
        if not isinstance(modules, _IterableABC):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self


class ModuleDict(Module):
    """An ordered dict of modules, registered under their keys (no ``forward``)."""

    def __init__(self, modules: (Mapping[str, Module] | Iterable[tuple[str, Module]]
                                 | None) = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return _entries(self)[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every entry."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove and return the module under ``key``."""
        v = self[key]
        del self[key]
        return v

    def keys(self) -> KeysView[str]:
        """The keys, in insertion order."""
        return self._modules.keys()

    def items(self) -> ItemsView[str, Module]:
        """``(key, module)`` pairs."""
        return _entries(self).items()

    def values(self) -> ValuesView[Module]:
        """The modules."""
        return _entries(self).values()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add entries from a mapping (in its order) or an iterable of ``(key, module)`` pairs."""
        for key, module in _pairs("ModuleDict", modules, sort_plain_mapping=False):
            self[key] = module


def _pairs(kind: str, entries: Any, sort_plain_mapping: bool) -> list[tuple[Any, Any]]:
    """The ``(key, value)`` pairs of a mapping or of an iterable of pairs, all checked before
    any is used (so a bad element changes nothing), with PyTorch's errors."""
    if not isinstance(entries, _IterableABC):
        name = "ParametersDict" if kind == "ParameterDict" else kind
        raise TypeError(f"{name}.update should be called with an iterable of key/value pairs, "
                        f"but got {type(entries).__name__}")
    if isinstance(entries, (OrderedDict, Module)) or (isinstance(entries, _MappingABC)
                                                       and not sort_plain_mapping):
        return list(entries.items())
    if isinstance(entries, _MappingABC):
        # PyTorch sorts a plain dict's keys for ParameterDict
        return sorted(entries.items())
    pairs = []
    for j, p in enumerate(entries):
        if not isinstance(p, _IterableABC):
            raise TypeError(f"{kind} update sequence element #{j} should be Iterable; is"
                            f"{type(p).__name__}")
        p = list(p)
        if len(p) != 2:
            raise ValueError(f"{kind} update sequence element #{j} has length {len(p)}; 2 is "
                             "required")
        pairs.append((p[0], p[1]))
    return pairs


class ParameterList(Module):
    """A list of parameters registered with the module (plain tensors become Parameters)."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    @overload
    def __getitem__(self, idx: slice) -> Self: ...

    @overload
    def __getitem__(self, idx: SupportsIndex) -> Any: ...

    def __getitem__(self, idx: slice | SupportsIndex) -> Any:
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self))))

    def __setitem__(self, idx: SupportsIndex, param: Any) -> None:
        i = _index(idx, len(self))
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(i), param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> Self:
        return self.extend(parameters)

    def __dir__(self) -> list[str]:
        return [k for k in super().__dir__() if not k.isdigit()]

    def append(self, value: Any) -> Self:
        """Add ``value`` at the end; returns self."""
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> Self:
        """Append every value of the iterable; returns self."""
        if isinstance(values, Tensor) or not hasattr(values, "__iter__"):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_entry_repr(k, p, str(p.dtype) if isinstance(p, Tensor) else "")
                         for k, p in enumerate(self))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


def _entry_repr(key: Any, p: Any, type_name: str) -> str:
    """One line of a ParameterList/ParameterDict ``extra_repr``."""
    if isinstance(p, Tensor):
        size_str = "x".join(str(s) for s in p.size())
        dev = f" ({p.device})" if p.device.type != "cpu" else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{type_name} of size {size_str}{dev}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterDict(Module):
    """An ordered dict of parameters registered with the module (plain tensors become
    Parameters; other values are kept as plain attributes), with ``dict``'s API.

    >>> pd = nn.ParameterDict({"scale": arraygrad.ones(3)})
    >>> pd["shift"] = nn.Parameter(arraygrad.zeros(3))
    >>> list(pd.state_dict())
    ['scale', 'shift']
    """

    _keys: dict[str, None]

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not "
                            f"a string (type is '{type(key).__name__}'). Open an issue on "
                            "github if you need non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)
        self._keys[key] = None

    def __delitem__(self, key: str) -> None:
        attr = self._key_to_attr(key)
        if key not in self._keys:
            raise KeyError(key)
        delattr(self, attr)
        del self._keys[key]

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameter objects (a shallow copy)."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any | None = None) -> Any:
        """``self[key]``, first set to ``default`` when absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry."""
        for k in list(self._keys):
            del self[k]

    def pop(self, key: str) -> Any:
        """Remove and return the entry under ``key``."""
        v = self[key]
        del self[key]
        return v

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last ``(key, value)`` inserted."""
        if not self._keys:
            raise KeyError("popitem(): dictionary is empty")
        k = next(reversed(self._keys))
        val = self[k]
        del self[k]
        return k, val

    def get(self, key: str, default: Any | None = None) -> Any:
        """``self[key]`` if present, else ``default``."""
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any | None = None) -> ParameterDict:
        """A new ParameterDict with every key of ``keys`` set to ``default`` (the same object)."""
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> KeysView[str]:
        """The keys, in insertion order."""
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(key, value)`` pairs, in insertion order."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """The values, in insertion order."""
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Add entries from a mapping or an iterable of ``(key, value)`` pairs.

        As PyTorch: an ``OrderedDict`` or ``ParameterDict`` keeps its order, a plain
        ``dict`` is added in sorted key order.
        """
        for key, value in _pairs("ParameterDict", parameters, sort_plain_mapping=True):
            self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(_entry_repr(k, p, p.type() if isinstance(p, Tensor) else "")
                         for k, p in self.items())

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: ParameterDict) -> Self:
        self.update(other)
        return self
