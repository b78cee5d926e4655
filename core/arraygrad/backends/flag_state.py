"""What PyTorch's ``torch.backends`` flag modules share: the global freeze
(``disable_global_flags``), flag modules that refuse plain assignment once frozen, the
``flags()`` context managers' save-set-restore, and the fp32-precision settings.

The flags of arraygrad's flag modules (``backends.cudnn.benchmark``...) are stored and read
back as in PyTorch; they choose no kernel, since arraygrad computes through its array
library's namespace (docs/differences.md).
"""

from __future__ import annotations

import contextlib
import sys
import types
from typing import Any, Callable, Iterator

__all__ = ["disable_global_flags", "flags_frozen", "allow_mutation", "make_flag_module",
           "flag_context", "set_module_flags", "FP32Precision", "get_precision",
           "set_precision"]

_frozen = [False]


def disable_global_flags() -> None:
    """From now on, setting a flag module's flag by plain assignment raises (use ``flags()``)."""
    _frozen[0] = True


def flags_frozen() -> bool:
    """Whether ``disable_global_flags`` was called."""
    return _frozen[0]


@contextlib.contextmanager
def allow_mutation() -> Iterator[None]:
    """Inside: the flags may be assigned even when frozen (``flags()`` uses it)."""
    old = _frozen[0]
    _frozen[0] = False
    try:
        yield
    finally:
        _frozen[0] = old


class _FlagModule(types.ModuleType):
    """A module whose flags (``_flag_names``) refuse plain assignment while frozen."""

    _flag_names: frozenset[str] = frozenset()

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self._flag_names and _frozen[0]:
            raise RuntimeError(f"not allowed to set {self.__name__} flags after "
                               "disable_global_flags; please use flags() context manager instead")
        super().__setattr__(name, value)


def make_flag_module(module_name: str, *flag_names: str, precision: str | None = None) -> None:
    """Make module ``module_name`` a flag module for ``flag_names`` (call at its end); with
    ``precision`` (a key of the fp32-precision settings), its ``fp32_precision`` attribute
    reads and sets that setting."""
    module = sys.modules[module_name]
    namespace: dict[str, Any] = {"_flag_names": frozenset(flag_names)}
    if precision is not None:
        key = precision

        def get(self: Any) -> str:
            return get_precision(key)

        def set_(self: Any, value: str) -> None:
            if _frozen[0]:
                raise RuntimeError(f"not allowed to set {self.__name__} flags after "
                                   "disable_global_flags; please use flags() context manager "
                                   "instead")
            set_precision(key, value)

        namespace["fp32_precision"] = property(get, set_, doc="The fp32 precision setting.")
    module.__class__ = type(f"{module_name.rpartition('.')[2]}_flags", (_FlagModule,), namespace)


@contextlib.contextmanager
def flag_context(set_flags: Callable[..., tuple[Any, ...]], *values: Any) -> Iterator[None]:
    """``set_flags(*values)`` for the block, the previous flags restored after (PyTorch's
    ``flags()`` shape: ``set_flags`` returns the flags it replaced)."""
    with allow_mutation():
        saved = set_flags(*values)
    try:
        yield
    finally:
        with allow_mutation():
            set_flags(*saved)


def set_module_flags(module_name: str, values: dict[str, Any], precision: str | None = None,
                     fp32_precision: str | None = None) -> None:
    """A ``set_flags`` body: module ``module_name``'s flags whose ``values`` are not None set
    (past the freeze, as PyTorch's ``set_flags``), then the fp32-precision setting
    ``precision`` when ``fp32_precision`` is not None."""
    module = sys.modules[module_name]
    for name, value in values.items():
        if value is not None:
            module.__dict__[name] = value
    if precision is not None and fp32_precision is not None:
        set_precision(precision, fp32_precision)


# -- fp32 precision: one setting per backend and op, "none" meaning "as the parent" --------
_PARENT = {"generic": None, "cuda": "generic", "cuda.matmul": "cuda", "cudnn": "generic",
           "cudnn.conv": "cudnn", "cudnn.rnn": "cudnn", "mkldnn": "generic",
           "mkldnn.matmul": "mkldnn", "mkldnn.conv": "mkldnn", "mkldnn.rnn": "mkldnn"}
_PRECISIONS = ("none", "ieee", "tf32", "bf16")
_precision: dict[str, str] = {key: "none" for key in _PARENT}


def get_precision(key: str) -> str:
    """The fp32 precision of ``key`` (``"cudnn.conv"``): its own, else its parent's."""
    value = _precision[key]
    parent = _PARENT[key]
    while value == "none" and parent is not None:
        value, parent = _precision[parent], _PARENT[parent]
    return value


def set_precision(key: str, value: str) -> None:
    """Set the fp32 precision of ``key``: ``"none"`` (inherit), ``"ieee"``, ``"tf32"``..."""
    if value not in _PRECISIONS:
        raise RuntimeError(f"Unknown precision: {value}")
    _precision[key] = value


class FP32Precision:
    """An op's precision setting: ``backends.cudnn.conv.fp32_precision = "tf32"``."""

    _key: str

    def __init__(self, key: str) -> None:
        object.__setattr__(self, "_key", key)

    @property
    def fp32_precision(self) -> str:
        """The precision set for this op, or inherited from its backend."""
        return get_precision(self._key)

    @fp32_precision.setter
    def fp32_precision(self, value: str) -> None:
        set_precision(self._key, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name != "fp32_precision":
            raise AttributeError("Unknown attribute " + name)
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"<fp32 precision of {self._key}: {self.fp32_precision!r}>"
