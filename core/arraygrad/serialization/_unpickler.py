"""The load side's unpicklers: a weights-only one that runs nothing from the file, and the
full one (``weights_only=False``) that maps PyTorch's names to arraygrad's.

The weights-only unpickler is ``pickle``'s Python ``Unpickler`` with every opcode that
could call or mutate something replaced by a checked version (as PyTorch's own
weights-only unpickler does): a global resolves only through an allow-list
(:data:`allowed_globals` plus what the user allow-lists with :func:`add_safe_globals`),
``REDUCE``/``NEWOBJ`` call only allow-listed callables, ``BUILD`` sets state only on
``OrderedDict`` and allow-listed types, ``APPEND``/``SETITEM``/``ADDITEMS`` touch only
lists, dicts and sets, ``INST``/``OBJ`` are refused, and a persistent id must name a
storage of the archive. So a hostile file cannot run code, read files or import modules.
"""

from __future__ import annotations

import _compat_pickle
import codecs
import pickle
import re
import struct
from collections import Counter, OrderedDict
from typing import Any, Callable

from arraygrad import dtypes as _dt
from arraygrad.autograd.hooks import HookDict
from arraygrad.device import device as _device
from arraygrad.serialization import _rebuild
from arraygrad.serialization._rebuild import short_repr
from arraygrad.serialization._hashed_keys import KeyChecker
from arraygrad.serialization._limits import LoadLimits, load_limits
from arraygrad.serialization._storage import STORAGE_TYPES, TORCH_DTYPES
from arraygrad.tensor import Size, Tensor

__all__ = ["add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals",
           "allowed_globals", "WeightsUnpickler", "FullUnpickler", "weights_only_message",
           "UNSAFE_MESSAGE", "Passthrough"]

_BLOCKED_MODULES = ("sys", "os", "posix", "nt")  # never allowed, even when allow-listed

# -- the user's allow-list ---------------------------------------------------------------

_marked_safe_globals: set[Any] = set()

SafeGlobal = Any  # a class/function, or a (class/function, "module.name") pair


def add_safe_globals(safe_globals: list[SafeGlobal]) -> None:
    """Allow ``weights_only`` loads to use these classes/functions (``torch.serialization``'s).

    Each item is an object (found in a file under ``obj.__module__ + "." + obj.__qualname__``)
    or a pair ``(obj, "module.name")`` naming where files refer to it. Only allow-list what you
    trust: a listed callable is called with arguments the file chooses.
    """
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals.union(set(safe_globals))


def get_safe_globals() -> list[SafeGlobal]:
    """The objects :func:`add_safe_globals` allow-listed."""
    return list(_marked_safe_globals)


def clear_safe_globals() -> None:
    """Forget every allow-listed global."""
    global _marked_safe_globals
    _marked_safe_globals = set()


def _remove_safe_globals(safe_globals: list[SafeGlobal]) -> None:
    global _marked_safe_globals
    _marked_safe_globals = _marked_safe_globals - set(safe_globals)


class safe_globals:
    """Context manager allow-listing ``safe_globals`` for ``weights_only`` loads inside it.

    >>> with arraygrad.serialization.safe_globals([MyConfig]):
    ...     arraygrad.load("ckpt.pt")
    """

    def __init__(self, safe_globals: list[SafeGlobal]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: Any) -> None:
        _remove_safe_globals(self.safe_globals)


def _user_allowed_globals() -> dict[str, Any]:
    rc: dict[str, Any] = {}
    for f in _marked_safe_globals:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError("Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(f)}")
            if type(f[1]) is not str:
                raise TypeError("Expected second item in tuple to be str of callable full path, "
                                f"but got: {type(f[1])}")
            rc[f[1]] = f[0]
        else:
            rc[f"{f.__module__}.{f.__qualname__}"] = f
    return rc


# -- what a weights-only load allows -------------------------------------------------------

_TEXT_CODECS = ("latin1", "latin-1", "iso-8859-1", "utf-8", "utf8", "ascii")


def _encode(obj: Any, encoding: Any = "utf-8", errors: Any = "strict") -> bytes:
    """``_codecs.encode`` limited to turning text into bytes (how protocol 2 pickles ``bytes``)."""
    if (not isinstance(obj, str) or not isinstance(encoding, str)
            or encoding.lower() not in _TEXT_CODECS or errors not in ("strict",)):
        raise pickle.UnpicklingError("_codecs.encode is allowed only to encode text to bytes with "
                                     "latin1/utf-8/ascii")
    return codecs.encode(obj, encoding, errors)


def _bytearray(*args: Any) -> bytearray:
    """``bytearray`` from text or bytes only: ``bytearray(10**12)`` would allocate a terabyte."""
    if not args:
        return bytearray()
    if isinstance(args[0], (bytes, bytearray)) and len(args) == 1:
        return bytearray(args[0])
    if isinstance(args[0], str) and len(args) in (2, 3):
        return bytearray(_encode(args[0], *args[1:]))
    raise pickle.UnpicklingError("bytearray is allowed only from bytes or encoded text")


class Passthrough(Exception):
    """Carries an error the loader raises as it is (PyTorch's class: a bad ``torch.Size`` is a
    ``TypeError``, a ``map_location`` failure the user's own) through the weights-only
    unpickler, whose other failures become ``UnpicklingError``."""


def _size(*args: Any) -> Size:
    """``torch.Size(sizes)`` from a file: an iterable of ints only, as PyTorch checks it."""
    if len(args) > 1:
        raise Passthrough(TypeError(f"Size() takes at most 1 argument ({len(args)} given)"))
    items = args[0] if args else ()
    if not isinstance(items, (tuple, list)):
        raise Passthrough(TypeError(f"'{type(items).__name__}' object is not iterable"))
    for i, n in enumerate(items):
        if not isinstance(n, int):
            raise Passthrough(TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is "
                                        f"'{type(n).__name__}')"))
    return Size(int(n) for n in items)


def _device_types() -> set[str]:
    """PyTorch's device types and those of arraygrad's registered backends."""
    from arraygrad.backends.registry import _registry
    from arraygrad.runtime_info import _DEVICE_TYPES

    return {*_DEVICE_TYPES.split(", "), *(b.device_type for b in _registry().values())}


def _checked_device(*args: Any) -> _device:
    """``torch.device(type[, index])`` from a file: a device type PyTorch (or an arraygrad
    backend) knows, and an int index, as ``torch.device`` checks them."""
    if not 1 <= len(args) <= 2:
        raise Passthrough(TypeError(f"device() takes 1 or 2 arguments ({len(args)} given)"))
    if not isinstance(args[0], str):
        raise Passthrough(TypeError(f"device(): argument 'type' (position 1) must be str, not "
                                    f"{type(args[0]).__name__}"))
    if len(args) == 2 and args[1] is not None and (not isinstance(args[1], int)
                                                    or isinstance(args[1], bool)):
        raise Passthrough(TypeError(f"device(): argument 'index' (position 2) must be int, not "
                                    f"{type(args[1]).__name__}"))
    try:
        dev = _device(*args)
    except (RuntimeError, ValueError) as exc:
        raise Passthrough(RuntimeError(str(exc))) from None
    if dev.type not in _device_types():
        from arraygrad.runtime_info import _DEVICE_TYPES

        raise Passthrough(RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of "
                                       f"device string: {dev.type}"))
    return dev


def _torch_table() -> dict[str, Any]:
    """``torch.*`` names a checkpoint uses -> arraygrad's objects (both unpicklers)."""
    from arraygrad.nn.parameter import Parameter

    rc: dict[str, Any] = {
        "torch.nn.parameter.Parameter": Parameter, "torch.Size": _size, "torch.Tensor": Tensor,
        "torch.device": _checked_device,
        "torch._tensor._rebuild_from_type_v2": _rebuild._rebuild_from_type_v2}
    for name, d in TORCH_DTYPES.items():
        if name == d.name:
            rc[f"torch.{name}"] = d
    rc["torch.serialization._get_layout"] = _rebuild._get_layout
    for name, stype in STORAGE_TYPES.items():
        rc[f"torch.{name}"] = stype
    rc["torch.storage.UntypedStorage"] = STORAGE_TYPES["UntypedStorage"]  # v3's bytes
    for name, fn in {**_rebuild.REBUILD_FUNCTIONS, **_rebuild.UNSUPPORTED_REBUILDS}.items():
        rc[f"torch._utils.{name}"] = fn
    return rc


def _arraygrad_internals() -> dict[str, Any]:
    """arraygrad's own classes that a whole saved ``nn.Module`` holds where PyTorch's holds an
    ``OrderedDict`` (a module's hook dicts): allowed as PyTorch's own internals are."""
    return {f"{HookDict.__module__}.{HookDict.__qualname__}": HookDict}


def allowed_globals() -> dict[str, Any]:
    """The globals a weights-only load allows by default: ``"module.name"`` -> object."""
    return {"collections.OrderedDict": OrderedDict, "collections.Counter": Counter,
            "_codecs.encode": _encode, "builtins.bytearray": _bytearray, "builtins.set": set,
            "builtins.frozenset": frozenset, "builtins.complex": complex, **_torch_table(),
            **_arraygrad_internals()}


# PyTorch dtypes arraygrad lacks: a named error rather than "unsupported global"
_MISSING_DTYPES = ("complex32", "float8_e4m3fn", "float8_e5m2",
                   "float8_e4m3fnuz", "float8_e5m2fnuz", "qint8", "quint8", "qint32",
                   "quint4x2", "quint2x4", "chalf")


def _fixed_name(proto: int, module: str, name: str) -> tuple[str, str]:
    """Python 2 names in protocol 0-2 pickles (``__builtin__.set``) -> Python 3's."""
    if proto < 3:
        if (module, name) in _compat_pickle.NAME_MAPPING:
            return _compat_pickle.NAME_MAPPING[(module, name)]
        if module in _compat_pickle.IMPORT_MAPPING:
            module = _compat_pickle.IMPORT_MAPPING[module]
    return module, name


def _missing_dtype(module: str, name: str) -> None:
    if module == "torch" and name in _MISSING_DTYPES:
        raise pickle.UnpicklingError(
            f"the checkpoint uses dtype torch.{name}, which arraygrad does not have (its dtypes "
            f"are {', '.join(d.name for d in _dt.ALL_DTYPES)})")


def _unsupported_global(full_path: str) -> pickle.UnpicklingError:
    shown = full_path
    if shown.startswith("builtins."):  # PyTorch shows builtins by their bare name
        shown = shown[len("builtins."):]
    return pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`arraygrad.serialization.add_safe_globals([{shown}])` or the "
        f"`arraygrad.serialization.safe_globals([{shown}])` context manager to allowlist this "
        "global if you trust this class/function.")


PersistentLoad = Callable[[Any], Any]

# what SETITEM(S) may fill: plain dicts, and arraygrad's dict a saved module's hooks live in
_DICT_TYPES = (dict, OrderedDict, Counter, HookDict)


# the Python implementation of pickle.Unpickler, whose opcode table a subclass can replace
_PyUnpickler: Any = getattr(pickle, "_Unpickler")


class WeightsUnpickler(_PyUnpickler):
    """The restricted unpickler of ``weights_only=True`` loads (see the module docstring)."""

    dispatch: dict[int, Callable[[Any], None]] = dict(_PyUnpickler.dispatch)

    def __init__(self, file: Any, persistent_load: PersistentLoad, encoding: str = "utf-8",
                 limits: LoadLimits | None = None) -> None:
        super().__init__(file, encoding=encoding)
        self._persistent_load = persistent_load
        self._keys = KeyChecker(limits if limits is not None else load_limits())
        self._allowed = allowed_globals()
        self._user = _user_allowed_globals()
        # what REDUCE/NEWOBJ may call: not the Tensor class, whose legacy constructor
        # Tensor(n, m) would allocate whatever the file asks
        self._callables = {id(v) for v in (*self._allowed.values(), *self._user.values())
                           if v is not Tensor}
        self._user_types = {id(v) for v in self._user.values() if isinstance(v, type)}

    def _is_allowed(self, obj: Any) -> bool:
        return id(obj) in self._callables

    def find_class(self, module: str, name: str) -> Any:
        if not isinstance(module, str) or not isinstance(name, str):
            raise pickle.UnpicklingError("a global's module and name must be strings")
        module, name = _fixed_name(self.proto, module, name)
        full_path = f"{module}.{name}"
        if module.split(".", 1)[0] in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(
                f"Trying to load unsupported GLOBAL {full_path} whose module {module} is blocked.")
        if full_path in self._allowed:
            return self._allowed[full_path]
        if full_path in self._user:
            return self._user[full_path]
        _missing_dtype(module, name)
        raise _unsupported_global(full_path)

    def persistent_load(self, pid: Any) -> Any:
        return self._persistent_load(pid)

    # -- the opcodes that call or mutate: checked --------------------------------------

    def _reduce(self) -> None:
        args = self.stack.pop()
        func = self.stack[-1]
        if not self._is_allowed(func):
            raise pickle.UnpicklingError(
                f"Trying to call reduce for unrecognized function {short_repr(func)}")
        if not isinstance(args, tuple):
            raise pickle.UnpicklingError("REDUCE arguments must be a tuple")
        self._keys.check_call(func, args)
        self.stack[-1] = func(*args)

    def _newobj(self) -> None:
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, {}))

    def _newobj_ex(self) -> None:
        kwargs = self.stack.pop()
        args = self.stack.pop()
        cls = self.stack.pop()
        self.append(self._new(cls, args, kwargs))

    def _new(self, cls: Any, args: Any, kwargs: Any) -> Any:
        from arraygrad.nn.parameter import Parameter

        if not isinstance(args, tuple) or not isinstance(kwargs, dict):
            raise pickle.UnpicklingError("NEWOBJ arguments must be a tuple (and a dict)")
        if cls is Parameter:
            return Parameter(*args, **kwargs)
        if isinstance(cls, type) and self._is_allowed(cls) and not issubclass(cls, Tensor):
            self._keys.check_call(cls, args)
            return cls.__new__(cls, *args, **kwargs)
        raise pickle.UnpicklingError("Can only create new object for nn.Parameter or classes "
                                     f"allowlisted via `add_safe_globals` but got "
                                     f"{short_repr(cls)}")

    def _build(self) -> None:
        state = self.stack.pop()
        inst = self.stack[-1]
        if type(inst) is OrderedDict:  # a state_dict's _metadata
            if not isinstance(state, dict):
                raise pickle.UnpicklingError("OrderedDict state must be a dict")
            inst.__dict__.update(state)
            return
        if id(type(inst)) not in self._user_types:
            raise pickle.UnpicklingError(
                "Can only build OrderedDict or types allowlisted via `add_safe_globals`, but got "
                f"{type(inst)}")
        setstate = getattr(inst, "__setstate__", None)
        if setstate is not None:  # the user trusts this type's own state handling
            setstate(state)
            return
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        if state:
            inst.__dict__.update(state)
        if slotstate:
            for k, v in slotstate.items():
                setattr(inst, k, v)

    def _refuse(self) -> None:
        raise pickle.UnpicklingError("INST and OBJ opcodes (protocols 0 and 1 class instances) "
                                     "are not supported by weights-only loading")

    def _append(self) -> None:
        value = self.stack.pop()
        self._target(list, "append to lists").append(value)

    def _appends(self) -> None:
        items = self.pop_mark()
        self._target(list, "extend lists").extend(items)

    def _setitem(self) -> None:
        value = self.stack.pop()
        key = self.stack.pop()
        target = self._target(_DICT_TYPES, "SETITEM for dict")
        self._keys.check(key)
        target[key] = value

    def _setitems(self) -> None:
        items = self.pop_mark()
        target = self._target(_DICT_TYPES, "SETITEMS for dict")
        self._keys.check_all(items[0::2])
        for i in range(0, len(items), 2):  # an odd count is an IndexError: malformed
            target[items[i]] = items[i + 1]

    def _dict(self) -> None:
        items = self.pop_mark()
        self._keys.check_all(items[0::2])
        self.append({items[i]: items[i + 1] for i in range(0, len(items), 2)})

    def _additems(self) -> None:
        items = self.pop_mark()
        target = self._target(set, "add to sets")
        self._keys.check_all(items)
        target.update(items)

    def _frozenset(self) -> None:
        items = self.pop_mark()
        self._keys.check_all(items)
        self.append(frozenset(items))

    def _bytearray8(self) -> None:
        # pickle's own version allocates the claimed length before reading it
        (size,) = struct.unpack("<Q", self.read(8))
        data = self.read(size)
        if len(data) != size:
            raise pickle.UnpicklingError("BYTEARRAY8 claims more bytes than data.pkl holds")
        self.append(bytearray(data))

    def _target(self, kinds: Any, what: str) -> Any:
        target = self.stack[-1]
        if type(target) not in (kinds if isinstance(kinds, tuple) else (kinds,)):
            raise pickle.UnpicklingError(f"Can only {what}, but got {short_repr(type(target))}")
        return target

    dispatch[pickle.REDUCE[0]] = _reduce
    dispatch[pickle.NEWOBJ[0]] = _newobj
    dispatch[pickle.NEWOBJ_EX[0]] = _newobj_ex
    dispatch[pickle.BUILD[0]] = _build
    dispatch[pickle.INST[0]] = _refuse
    dispatch[pickle.OBJ[0]] = _refuse
    dispatch[pickle.APPEND[0]] = _append
    dispatch[pickle.APPENDS[0]] = _appends
    dispatch[pickle.SETITEM[0]] = _setitem
    dispatch[pickle.SETITEMS[0]] = _setitems
    dispatch[pickle.ADDITEMS[0]] = _additems
    dispatch[pickle.DICT[0]] = _dict
    dispatch[pickle.FROZENSET[0]] = _frozenset
    dispatch[pickle.BYTEARRAY8[0]] = _bytearray8


def _arraygrad_equivalent(module: str, name: str) -> Any:
    """``torch.a.b.Name`` -> ``arraygrad.a.b.Name``, else the nearest arraygrad package's ``Name``
    (``torch.nn.modules.linear.Linear`` -> ``arraygrad.nn.Linear``)."""
    import importlib

    parts = ["arraygrad", *module.split(".")[1:]]
    while parts:
        try:
            mod = importlib.import_module(".".join(parts))
        except ImportError:
            parts.pop()
            continue
        obj = getattr(mod, name, None)
        if obj is not None:
            return obj
        parts.pop()
    raise pickle.UnpicklingError(f"the checkpoint refers to {module}.{name}, which has no "
                                 "arraygrad equivalent")


class FullUnpickler(pickle.Unpickler):
    """The ``weights_only=False`` unpickler: any global, with PyTorch's names mapped to arraygrad.

    Unpickling this way can run arbitrary code from the file: only for trusted files.
    """

    def __init__(self, file: Any, persistent_load: PersistentLoad, **kwargs: Any) -> None:
        super().__init__(file, **kwargs)
        self._persistent = persistent_load
        self._table = _torch_table()

    def persistent_load(self, pid: Any) -> Any:
        return self._persistent(pid)

    def find_class(self, module: str, name: str) -> Any:
        # (the C unpickler's own find_class maps Python 2 names; torch's names have none)
        full_path = f"{module}.{name}"
        if full_path in self._table:
            return self._table[full_path]
        if module == "torch" or module.startswith("torch."):
            _missing_dtype(module, name)
            return _arraygrad_equivalent(module, name)
        return super().find_class(module, name)


# -- PyTorch's wording of a refused weights-only load ------------------------------------------

UNSAFE_MESSAGE = (
    "Re-running `arraygrad.load` with `weights_only` set to `False` will likely succeed, but it "
    "can result in arbitrary code execution. Do it only if you got the file from a trusted "
    "source.")


def weights_only_message(message: str) -> str:
    """The full error of a refused weights-only load around the unpickler's ``message``."""
    if re.search(r"GLOBAL (\S+) was not an allowed global by default.", message):
        return ("Weights only load failed. This file can still be loaded, to do so you have two "
                "options, do those steps only if you trust the source of the checkpoint. "
                f"\n\t(1) {UNSAFE_MESSAGE}\n\t(2) Alternatively, to load with `weights_only=True` "
                "please check the recommended steps in the following error message.\n\t"
                "WeightsUnpickler error: " + message)
    return f"Weights only load failed. {UNSAFE_MESSAGE}\n\nWeightsUnpickler error: {message}"
