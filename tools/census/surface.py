"""PyTorch's public surface, read from PyTorch itself: the names of each public module a user
imports, and the keyword arguments each of its callables accepts.

A module's public names are its ``__all__`` together with every name of ``dir(module)`` that
does not start with ``_``, less what the module merely re-exports from outside PyTorch (the
standard library's ``math``, ``typing.Optional``...). A module PyTorch cannot import here (its
optional dependency is missing: ``torch.utils.tensorboard`` needs ``tensorboard``) is read from
its source with ``ast`` instead.

A callable's keyword arguments are gathered from every description PyTorch gives (a Python
signature, the argument parser's overload listing, the docstring's signature lines,
``torch.overrides``' stand-ins), then each is checked by calling PyTorch itself with only that
keyword: names PyTorch refuses (a docstring's ``*shape`` that is really ``size``) are dropped.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
import types
import warnings
from typing import Any, Callable, Iterator

# The modules of the census: what the PyTorch programs people write import.
MODULES = (
    "torch", "torch.Tensor",
    "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils", "torch.nn.utils.rnn",
    "torch.nn.utils.parametrize", "torch.nn.utils.parametrizations", "torch.nn.utils.prune",
    "torch.nn.utils.stateless", "torch.nn.utils.clip_grad", "torch.nn.attention",
    "torch.nn.parallel",
    "torch.optim", "torch.optim.lr_scheduler", "torch.optim.swa_utils",
    "torch.autograd", "torch.autograd.functional", "torch.autograd.forward_ad",
    "torch.autograd.graph", "torch.autograd.profiler",
    "torch.func", "torch.linalg", "torch.special", "torch.fft", "torch.distributions",
    "torch.amp", "torch.cuda", "torch.cuda.amp", "torch.backends", "torch.backends.cudnn",
    "torch.backends.cuda", "torch.backends.mps", "torch.jit", "torch.onnx", "torch.hub",
    "torch.utils", "torch.utils.data", "torch.utils.checkpoint", "torch.utils.benchmark",
    "torch.utils.tensorboard", "torch.utils.hooks", "torch.utils.model_zoo",
    "torch.multiprocessing", "torch.testing", "torch.random", "torch.profiler", "torch.version",
    "torch.serialization", "torch.accelerator", "torch.functional", "torch.distributed",
) + (
    # classes whose methods programs call as much as module functions
    "torch.nn.Module", "torch.optim.Optimizer", "torch.Generator", "torch.dtype", "torch.device",
    "torch.Size",
)

CLASSES = frozenset({"torch.Tensor", "torch.nn.Module", "torch.optim.Optimizer",
                     "torch.Generator", "torch.dtype", "torch.device", "torch.Size"})
"""The census entries that are classes: their public attributes are the surface."""

# A value of any of these modules' making that a torch module holds is an import, not PyTorch's
# own surface (``torch.nn.functional.Optional``, ``torch.optim.lr_scheduler.Counter``).
_FOREIGN_ROOTS = ("typing", "typing_extensions", "collections", "abc", "builtins", "enum",
                  "functools", "itertools", "dataclasses", "contextlib", "numbers", "types",
                  "warnings", "weakref", "math", "os", "sys", "re", "threading", "inspect",
                  "numpy", "io", "pathlib", "logging", "copy", "operator", "string", "textwrap",
                  "tempfile", "hashlib", "shutil", "urllib", "json", "pickle", "multiprocessing",
                  "queue", "time", "ctypes", "glob", "importlib", "platform", "uuid", "errno",
                  "zipfile", "tarfile", "traceback", "datetime", "difflib", "random",
                  "concurrent", "signal", "socket", "subprocess", "struct", "fnmatch", "bisect",
                  "heapq", "array", "dis", "ast", "argparse", "atexit", "gc", "pprint", "unittest",
                  "numpy.typing", "sympy", "_collections_abc", "_operator", "_thread",
                  "_weakrefset", "posixpath")


# Names every module may hold that are Python's machinery, not a public name of PyTorch's.
_MACHINERY = {"TYPE_CHECKING", "annotations"}


def _is_foreign(value: Any, owner: str, attr: str) -> bool:
    """Whether ``value`` (``owner.attr``) is something a torch module imported, not its own."""
    if isinstance(value, types.ModuleType):
        # a submodule is the module's own; another module it imported (``torch`` itself) is not
        return value.__name__ != f"{owner}.{attr}"
    if isinstance(value, (type, types.FunctionType, types.BuiltinFunctionType)) or \
            getattr(value, "__module__", None) == "typing":
        module = getattr(value, "__module__", None) or ""
        return module.split(".")[0] in _FOREIGN_ROOTS
    return False


def import_torch_module(name: str) -> Any:
    """The torch module (or class of ``CLASSES``) named ``name``; None when PyTorch cannot import
    it."""
    if name in CLASSES:
        owner, _, attr = name.rpartition(".")
        return getattr(importlib.import_module(owner), attr)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(name)
    except ImportError:
        return None


def _names_from_source(name: str) -> list[str]:
    """The public names a module defines or imports at top level, read from its source."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise ImportError(f"census: no source for {name}")
    tree = ast.parse(open(spec.origin, encoding="utf-8").read())
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ("torch", ""):
            names.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                return sorted(ast.literal_eval(node.value))
    return sorted(n for n in names if not n.startswith("_"))


def public_names(name: str) -> list[str]:
    """The public names of torch module ``name`` (or of a class of ``CLASSES``), sorted."""
    module = import_torch_module(name)
    if module is None:
        return _names_from_source(name)
    declared = set(getattr(module, "__all__", ()) or ()) if name not in CLASSES else set()
    found = set(declared)
    attrs = set(dir(module))
    inner = getattr(module, "m", None)
    if type(module) is not types.ModuleType and isinstance(inner, types.ModuleType):
        # torch.backends.cudnn & co. are a module wrapped in an object whose class holds the
        # flags as properties (``cudnn.benchmark``): both are the surface
        attrs = (set(dir(inner)) | set(vars(type(module)))) - {"m"}
        module = inner
    for attr in sorted(attrs):
        if attr.startswith("_") or attr in found or attr in _MACHINERY:
            continue
        try:
            value = getattr(module, attr)
        except Exception:  # a lazy attribute that fails here is still a public name
            found.add(attr)
            continue
        if not _is_foreign(value, name, attr):
            found.add(attr)
    return sorted(found)


# ---------------------------------------------------------------------------------- keywords
class Probe:
    """The value every keyword is called with: any use of it fails, so nothing is computed."""

    def __repr__(self) -> str:
        return "<census probe>"


PROBE = Probe()
_LISTED = re.compile(r"^\s*\*\s*\((.*)\)\s*$", re.M)
_SINGLE = re.compile(r"but expected \((.*)\)\s*$", re.M)
_DOC_LINE = re.compile(r"^(?:\.\. (?:function|method):: )?[\w.]+\((.*?)\)\s*(?:->.*)?$", re.M)


def _names_in_parameter_list(text: str) -> set[str]:
    """Parameter names of a printed list like ``Tensor input, *, torch.dtype dtype = None``."""
    names = set()
    depth = 0
    part = ""
    parts = []
    for ch in text:  # split on top-level commas (defaults may hold parentheses)
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(part)
            part = ""
        else:
            part += ch
    parts.append(part)
    for piece in parts:
        head = piece.split("=")[0].strip().lstrip("*").strip()
        if not head or head in ("/",):
            continue
        word = head.split()[-1].strip(":")
        if word.isidentifier() and word != "self":
            names.add(word)
    return names


def _argument_parser_names(bound: Callable[..., Any]) -> set[str]:
    """Names from PyTorch's argument parser, which lists every overload when a call fits none."""
    try:
        bound(*([PROBE] * 9))
    except TypeError as error:
        text = str(error)
        found: set[str] = set()
        for match in _LISTED.finditer(text):
            found |= _names_in_parameter_list(match.group(1))
        single = _SINGLE.search(text)
        if single:
            found |= _names_in_parameter_list(single.group(1))
        return found
    except Exception:
        return set()
    return set()


def _doc_names(obj: Any) -> set[str]:
    doc = getattr(obj, "__doc__", None) or ""
    found: set[str] = set()
    for match in _DOC_LINE.finditer(doc[:4000]):
        found |= _names_in_parameter_list(match.group(1))
    return found


_OVERRIDES: dict[Any, Callable[..., Any]] | None = None


def _override_names(obj: Any) -> set[str]:
    global _OVERRIDES
    if _OVERRIDES is None:
        import torch.overrides
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _OVERRIDES = torch.overrides.get_testing_overrides()
    stand_in = _OVERRIDES.get(obj)
    if stand_in is None:
        return set()
    return _signature_names(stand_in) or set()


def _signature_names(obj: Any) -> set[str] | None:
    """The keyword-passable parameter names of a Python signature; None when there is none."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    names = {p.name for p in signature.parameters.values()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"}
    if any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()) and not names:
        return None  # ``(*args, **kwargs)`` says nothing
    return names


def refuses_keyword(error: BaseException, keyword: str) -> bool:
    """Whether ``error`` is a call's refusal of keyword argument ``keyword``."""
    if not isinstance(error, TypeError):
        return False
    text = str(error)
    if re.search(rf"unexpected keyword argument '{re.escape(keyword)}'", text):
        return True
    if re.search(rf"keywords were incorrect: .*\b{re.escape(keyword)}\b", text):
        return not re.search(r"expected one of", text) or _every_overload_refuses(text, keyword)
    return bool(re.search(rf"(?:takes no|does not take|doesn't take) keyword", text))


def _every_overload_refuses(text: str, keyword: str) -> bool:
    """In a listing of overloads, whether none of them takes ``keyword``."""
    return not any(keyword in _names_in_parameter_list(m.group(1)) for m in _LISTED.finditer(text))


def call_with_keyword(target: Callable[..., Any], keyword: str) -> BaseException | None:
    """Call ``target`` with ``keyword=PROBE`` alone; the exception it raised, or None."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            target(**{keyword: PROBE})
    except BaseException as error:  # noqa: BLE001 - any outcome is a measurement
        if isinstance(error, KeyboardInterrupt):
            raise
        return error
    return None


def _trial_arguments() -> list[tuple[Any, ...]]:
    """Leading positional arguments to try, so a builtin's parser gets as far as the keywords."""
    import torch
    t = torch.ones(2, 2)
    return [(), (t,), ((2, 2),), ([t, t],), (t, t), (t, 0), (2,)]


def _builtin_accepts(target: Callable[..., Any], keyword: str) -> bool:
    """Whether a builtin without an overload listing takes ``keyword``: a call that gets past
    the positional arguments either refuses the keyword by name or complains of its value."""
    for leading in _trial_arguments():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                target(*leading, **{keyword: PROBE})
        except Exception as error:  # noqa: BLE001 - any outcome is a measurement
            if refuses_keyword(error, keyword):
                return False
            if f"argument '{keyword}'" in str(error):
                return True
            continue
        return True
    return False  # undecided: not required of arraygrad


def torch_keywords(obj: Any, bound: Callable[..., Any] | None = None) -> list[str]:
    """The keywords PyTorch's ``obj`` (a function, class or Tensor method) accepts.

    A Python signature is taken as it is; a builtin's argument-parser listing of its overloads
    likewise. Otherwise the docstring's and ``torch.overrides``' names are each tried on
    PyTorch itself, and kept only when PyTorch takes them.
    """
    target = bound if bound is not None else obj
    if isinstance(obj, type):
        return sorted(_signature_names(obj.__init__) or ())
    described = _signature_names(obj)
    if described is not None:
        return sorted(described)
    listed = _argument_parser_names(target)
    if listed:
        return sorted(listed)
    candidates = _doc_names(obj) | _override_names(obj)
    return sorted(k for k in candidates if _builtin_accepts(target, k))


def iter_callables(module_name: str) -> Iterator[tuple[str, Any]]:
    """``(name, object)`` for the callables among a torch module's public names."""
    module = import_torch_module(module_name)
    if module is None:
        return
    for name in public_names(module_name):
        try:
            value = inspect.getattr_static(module, name) if module_name in CLASSES \
                else getattr(module, name)
        except Exception:
            continue
        if isinstance(value, (property, types.GetSetDescriptorType, types.MemberDescriptorType)):
            continue
        if module_name in CLASSES:
            value = getattr(module, name)
        if callable(value) and not isinstance(value, types.ModuleType):
            yield name, value
