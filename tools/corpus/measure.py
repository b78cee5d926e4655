"""How much of a corpus of PyTorch programs arraygrad resolves, name by name.

    python tools/corpus/measure.py --corpus /work/corpus [--against arraygrad|torch]
                                   [--json out.json] [--report out.md]

Every ``.py`` file under ``--corpus`` is parsed with ``ast`` (its repository is the first folder
under the corpus root).  What counts as a use (see tools/corpus/README.md):

* torch names: every dotted name that reaches ``torch`` through the file's imports
  (``import torch``, ``import torch.nn as nn``, ``from torch import nn, optim``,
  ``from torch.nn import functional as F``, ``from torch.utils.data import DataLoader``, ...),
  written as the full path, e.g. ``torch.nn.functional.gelu``; the ``from``/``import`` statements
  name uses too.  An attribute being assigned (``torch.backends.cudnn.benchmark = True``) uses
  its owner (``torch.backends.cudnn``).
* Tensor methods: ``<expr>.name`` with ``name`` a public attribute of ``torch.Tensor`` that no
  common non-tensor type (str, list, dict, set, tuple, int, float, bytes, numpy.ndarray,
  torch.nn.Module) also has; not on torch chains, not on ``self``/``cls``, and not on a name bound
  by an import (``np.log``, ``math.exp``: module functions, not methods).

Each distinct name counts once per file (a use) and also by occurrence.  A torch name resolves
when, with ``torch`` read as ``arraygrad`` (``--against torch``: torch itself), each part of
the path is an attribute or an importable submodule of the part before; a Tensor method
resolves when ``hasattr(arraygrad.Tensor, name)``.  Names torch 2.13 itself lacks (misspellings,
names of other torch versions) are left out of both sides and listed apart.  Without torch
installed, the Tensor attribute list, the ambiguous list and the names torch lacks come from
``torch_reference.json`` (``--write-reference`` remakes it with torch installed).
"""

from __future__ import annotations

import argparse
import ast
import importlib
import json
import os
import sys
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REFERENCE = HERE / "torch_reference.json"
TORCH_VERSION = "2.13"

# Top-level modules of the torch family that are not torch itself (reported, not measured).
TORCH_FAMILY = ("torchvision", "torchaudio", "torchtext", "torchdata", "torchrl", "torchmetrics",
                "torch_geometric", "torch_scatter", "torch_sparse", "torchsummary", "torchinfo")
# Tensor attribute names these types also have are ambiguous: not counted as Tensor methods.
AMBIGUOUS_TYPES = ("str", "list", "dict", "set", "tuple", "int", "float", "bytes", "numpy.ndarray",
                   "torch.nn.Module")
# ... and these, common in training scripts (`path.name`, `logger.name`, `subset.indices`,
# `torch.topk(...).indices`), so that their attributes are not read as Tensor methods either.
AMBIGUOUS_TYPES_ALSO = ("pathlib.Path", "os.DirEntry", "logging.Logger", "torch.utils.data.Subset",
                        "torch.return_types.topk")
# `self.x`, `cls.x`, `ctx.x` (a module's, a class's, an autograd Function context's attributes)
OWN_OBJECTS = ("self", "cls", "ctx")
METHOD_PREFIX = "Tensor."


# --------------------------------------------------------------------------- collecting uses


@dataclass
class FileUses:
    """The torch names and Tensor methods one source file uses."""

    names: Counter = field(default_factory=Counter)  # qualified torch name -> occurrences
    methods: Counter = field(default_factory=Counter)  # Tensor attribute name -> occurrences
    star_imports: list = field(default_factory=list)  # "torch.x" for each `from torch.x import *`
    imports: set = field(default_factory=set)  # top-level modules imported (any)


def _is_torch(module: str) -> bool:
    return module == "torch" or module.startswith("torch.")


def _chain(node: ast.AST) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None unless the expression is names and attributes only."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return parts[::-1]


_SCOPES = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
           ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Scope:
    def __init__(self, node: ast.AST, parent: "_Scope | None"):
        self.node = node
        self.parent = parent
        self.is_class = isinstance(node, ast.ClassDef)
        self.is_comp = isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp))
        self.globals: set[str] = set()
        # name -> [(line, col, kind, torch qualified name or None)], kind: torch|import|other
        self.bindings: dict[str, list[tuple[int, int, str, str | None]]] = defaultdict(list)


class _Binder(ast.NodeVisitor):
    """Python's name scopes, enough to tell which ``nn``/``F``/``data`` a name means: every
    binding (imports, assignments, parameters, loop and ``with`` targets, ``def``/``class``
    names, ``except ... as``) is recorded in its scope, and every Name node keeps its scope."""

    def __init__(self):
        self.scope_of: dict[int, _Scope] = {}
        self.scope: _Scope | None = None
        self.import_uses = FileUses()

    def _bind(self, name: str, node: ast.AST, kind: str, qual: str | None = None) -> None:
        scope = self.scope
        assert scope is not None
        if name in scope.globals:
            while scope.parent is not None:
                scope = scope.parent
        elif kind == "other" and scope.is_comp and isinstance(node, ast.NamedExpr):
            while scope.is_comp and scope.parent is not None:
                scope = scope.parent
        scope.bindings[name].append((getattr(node, "lineno", 0), getattr(node, "col_offset", 0), kind, qual))

    def _enter(self, node: ast.AST) -> _Scope:
        new = _Scope(node, self.scope)
        self.scope = new
        return new

    def visit_Module(self, node):
        self._enter(node)
        self.generic_visit(node)

    def _function(self, node):
        for dec in getattr(node, "decorator_list", []):
            self.visit(dec)
        args = node.args
        for default in args.defaults + [d for d in args.kw_defaults if d is not None]:
            self.visit(default)
        if not isinstance(node, ast.Lambda):
            self._bind(node.name, node, "other")
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if a is not None and a.annotation is not None:
                    self.visit(a.annotation)
            if node.returns is not None:
                self.visit(node.returns)
        outer = self.scope
        inner = self._enter(node)
        for stmt in ast.walk(node):  # `global` statements of this function (not nested ones)
            if isinstance(stmt, ast.Global):
                inner.globals.update(stmt.names)
        for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if a is not None:
                self._bind(a.arg, node, "other")
        body = node.body if isinstance(node.body, list) else [node.body]
        for stmt in body:
            self.visit(stmt)
        self.scope = outer

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_ClassDef(self, node):
        for expr in [*node.decorator_list, *node.bases, *[k.value for k in node.keywords]]:
            self.visit(expr)
        self._bind(node.name, node, "other")
        outer = self.scope
        self._enter(node)
        for stmt in node.body:
            self.visit(stmt)
        self.scope = outer

    def _comprehension(self, node):
        outer = self.scope
        gens = node.generators
        self.visit(gens[0].iter)  # the first iterable is evaluated outside
        self._enter(node)
        for i, gen in enumerate(gens):
            if i:
                self.visit(gen.iter)
            self.visit(gen.target)
            for cond in gen.ifs:
                self.visit(cond)
        for part in ("elt", "key", "value"):
            if hasattr(node, part):
                self.visit(getattr(node, part))
        self.scope = outer

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    def visit_Name(self, node):
        self.scope_of[id(node)] = self.scope
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._bind(node.id, node, "other")

    def visit_NamedExpr(self, node):
        self.visit(node.value)
        self.scope_of[id(node.target)] = self.scope
        self._bind(node.target.id, node, "other")

    def visit_ExceptHandler(self, node):
        if node.name:
            self._bind(node.name, node, "other")
        self.generic_visit(node)

    def visit_Import(self, node):
        uses = self.import_uses
        for a in node.names:
            uses.imports.add(a.name.split(".")[0])
            if _is_torch(a.name):
                if a.asname:
                    self._bind(a.asname, node, "torch", a.name)
                else:
                    self._bind(a.name.split(".")[0], node, "torch", "torch")
                if a.name != "torch":
                    uses.names[a.name] += 1
            else:
                self._bind(a.asname or a.name.split(".")[0], node, "import")

    def visit_ImportFrom(self, node):
        uses = self.import_uses
        if node.level or not node.module:
            for a in node.names:
                if a.name != "*":
                    self._bind(a.asname or a.name, node, "import")
            return
        uses.imports.add(node.module.split(".")[0])
        torch_mod = _is_torch(node.module)
        for a in node.names:
            if a.name == "*":
                if torch_mod:
                    uses.star_imports.append(node.module)
                    if node.module != "torch":
                        uses.names[node.module] += 1
                continue
            if torch_mod:
                qual = f"{node.module}.{a.name}"
                self._bind(a.asname or a.name, node, "torch", qual)
                uses.names[qual] += 1
            else:
                self._bind(a.asname or a.name, node, "import")

    def visit_MatchAs(self, node):
        if node.name:
            self._bind(node.name, node, "other")
        self.generic_visit(node)

    def visit_MatchStar(self, node):
        if node.name:
            self._bind(node.name, node, "other")

    def lookup(self, node: ast.Name) -> tuple[str, str | None] | None:
        """(kind, torch qualified name) of the binding a Name node reads; None if unbound."""
        scope = self.scope_of.get(id(node))
        first = True
        while scope is not None:
            if scope.is_class and not first:
                scope = scope.parent
                continue
            entries = scope.bindings.get(node.id)
            if entries:
                if first and not (scope.node is node):
                    here = (node.lineno, node.col_offset)
                    before = [e for e in entries if (e[0], e[1]) <= here]
                    # in its own scope a name means its latest binding above; a use above
                    # every binding (a function called later) means any torch import there
                    chosen = before[-1] if before else None
                    if chosen is None:
                        torchy = [e for e in entries if e[2] == "torch"]
                        chosen = torchy[-1] if torchy else entries[-1]
                else:
                    # an enclosing scope's name: the import, when there is one
                    kinds = [e for e in entries if e[2] != "other"]
                    chosen = kinds[-1] if kinds else entries[-1]
                return chosen[2], chosen[3]
            first = False
            scope = scope.parent
        return None


def collect(source: str, tensor_names: set[str], ambiguous: set[str]) -> FileUses:
    """The uses in one source text (raises SyntaxError when it does not parse)."""
    tree = ast.parse(source)
    binder = _Binder()
    binder.visit(tree)
    uses = binder.import_uses
    methods_ok = tensor_names - ambiguous
    inner: set[int] = set()  # Attribute nodes that are the value of another Attribute
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
            inner.add(id(node.value))
    torch_chain_nodes: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Attribute, ast.Name)) or id(node) in inner:
            continue
        parts = _chain(node)
        if parts is None:
            continue
        base = node
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            continue
        bound = binder.lookup(base)
        if bound is None or bound[0] != "torch":
            continue
        # the whole chain is torch names, never Tensor methods
        sub = node
        while isinstance(sub, ast.Attribute):
            torch_chain_nodes.add(id(sub))
            sub = sub.value
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            parts = parts[:-1]  # assigning an attribute uses its owner
        qual = ".".join([bound[1], *parts[1:]])
        if qual != "torch":
            uses.names[qual] += 1
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or id(node) in torch_chain_nodes:
            continue
        if node.attr not in methods_ok:
            continue
        base = node.value
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Name):
            if node.value is base and base.id in OWN_OBJECTS:
                continue
            bound = binder.lookup(base)
            if bound is not None and bound[0] == "import":
                continue  # np.log, math.exp, np.linalg.lstsq: module functions
        uses.methods[node.attr] += 1
    return uses


# --------------------------------------------------------------------------- resolving


_ANY = object()  # a module that is there but cannot be imported here (a missing dependency)


class Resolver:
    """Looks dotted torch names up in a root package (``arraygrad`` or ``torch``)."""

    def __init__(self, root: str):
        self.root = root
        self.cache: dict[str, str | None] = {}
        self.tensor = None
        self.root_error: str | None = None
        try:
            self.module = importlib.import_module(root)
            self.tensor = getattr(self.module, "Tensor", None)
        except Exception as exc:  # pragma: no cover - reported
            self.module = None
            self.root_error = f"{type(exc).__name__}: {exc}"

    def _import(self, parts: list[str]):
        """The module ``root.parts...``; _ANY when it is there but needs a package not installed
        here (what is read from it then counts as present); None when there is no such module."""
        name = ".".join([self.root, *parts])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and not (exc.name == name or name.startswith(exc.name + ".")):
                return _ANY
            return None
        except Exception:
            return None

    def missing(self, qual: str) -> str | None:
        """None when ``qual`` (a ``torch...`` name) resolves, else its shortest unresolved prefix.

        Each part must be an attribute of the object before it, or a submodule of the module
        the path so far names (``torch.nn.utils.spectral_norm`` is both a function and a module).
        """
        if qual in self.cache:
            return self.cache[qual]
        parts = qual.split(".")
        obj = self.module
        result = None
        if obj is None:
            result = parts[0]
        else:
            for i in range(1, len(parts)):
                if obj is _ANY:
                    break
                name = parts[i]
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        found = hasattr(obj, name)
                        if found:
                            obj = getattr(obj, name)
                            continue
                except Exception:
                    pass
                sub = self._import(parts[1 : i + 1])
                if sub is None and not isinstance(obj, type(sys)) and i > 1:
                    owner = self._import(parts[1:i])
                    if owner is not None and owner is not _ANY and hasattr(owner, name):
                        sub = getattr(owner, name)
                if sub is not None:
                    obj = sub
                    continue
                result = ".".join(parts[: i + 1])
                break
        self.cache[qual] = result
        return result

    def has_method(self, name: str) -> bool:
        return self.tensor is not None and hasattr(self.tensor, name)


def torch_facts() -> dict:
    """Tensor attribute names and the ambiguous ones, from the torch installed here."""
    import numpy
    import torch

    import logging
    import pathlib

    tensor = sorted(n for n in dir(torch.Tensor) if not n.startswith("_"))
    types = {"str": str, "list": list, "dict": dict, "set": set, "tuple": tuple, "int": int,
             "float": float, "bytes": bytes, "numpy.ndarray": numpy.ndarray,
             "torch.nn.Module": torch.nn.Module}
    also = {"pathlib.Path": pathlib.Path, "os.DirEntry": os.DirEntry, "logging.Logger": logging.Logger,
            "torch.utils.data.Subset": torch.utils.data.Subset(list(range(3)), [0]),
            "torch.return_types.topk": torch.topk(torch.zeros(2), 1)}
    assert tuple(types) == AMBIGUOUS_TYPES and tuple(also) == AMBIGUOUS_TYPES_ALSO

    def attrs(objs):
        return {n for n in tensor if any(hasattr(t, n) for t in objs)}

    listed = attrs(types.values())
    extra = attrs(also.values()) - listed
    return {"torch_version": torch.__version__, "tensor_attributes": tensor,
            "ambiguous": sorted(listed | extra), "ambiguous_listed_types": sorted(listed),
            "ambiguous_also": sorted(extra)}


def load_reference(path: Path = REFERENCE) -> dict:
    if path.is_file():
        return json.loads(path.read_text())
    return {}


# --------------------------------------------------------------------------- measuring


@dataclass
class Measurement:
    files: int = 0
    repos: set = field(default_factory=set)
    parsed: int = 0
    unparsed: list = field(default_factory=list)
    per_file: dict = field(default_factory=dict)  # rel path -> FileUses


def scan(corpus: Path, tensor_names: set[str], ambiguous: set[str]) -> Measurement:
    m = Measurement()
    for dirpath, _dirs, files in os.walk(corpus):
        for fn in sorted(files):
            if not fn.endswith(".py"):
                continue
            path = Path(dirpath) / fn
            rel = path.relative_to(corpus).as_posix()
            if "/" not in rel:
                continue  # files at the root (reports, scripts) belong to no repository
            m.files += 1
            m.repos.add(rel.split("/", 1)[0])
            try:
                src = path.read_text(encoding="utf-8", errors="replace")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    uses = collect(src, tensor_names, ambiguous)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                m.unparsed.append(rel)
                continue
            m.parsed += 1
            m.per_file[rel] = uses
    return m


def evaluate(m: Measurement, resolver: Resolver, torch_lacks) -> dict:
    """Figures and lists for the report.  ``torch_lacks(qual)`` says whether torch 2.13 itself
    lacks a name (those are left out of both numerator and denominator)."""
    uses_total = uses_ok = occ_total = occ_ok = 0
    name_uses = name_ok = method_uses = method_ok = 0
    full_files = 0
    raw_full_files = 0
    unresolved_files: dict[str, set] = defaultdict(set)  # missing key -> files
    unresolved_occ: Counter = Counter()
    members: dict[str, Counter] = defaultdict(Counter)  # missing key -> full names (files)
    lacking_files: dict[str, set] = defaultdict(set)
    single: dict[str, list] = defaultdict(list)
    blocked: list[set] = []  # each not fully resolved file's missing names
    family_files: Counter = Counter()
    import_files: Counter = Counter()
    star_files = 0
    plain_files = plain_full = 0  # files importing no torch-family package
    for rel, fu in sorted(m.per_file.items()):
        missing_keys: set[str] = set()
        raw_missing = False
        uses_family = False
        for fam in TORCH_FAMILY:
            if fam in fu.imports:
                family_files[fam] += 1
                uses_family = True
        for mod in fu.imports:
            import_files[mod] += 1
        if fu.star_imports:
            star_files += 1
        for qual, occ in fu.names.items():
            if torch_lacks(qual):
                lacking_files[qual].add(rel)
                raw_missing = True
                continue
            key = resolver.missing(qual)
            uses_total += 1
            name_uses += 1
            occ_total += occ
            if key is None:
                uses_ok += 1
                name_ok += 1
                occ_ok += occ
            else:
                raw_missing = True
                missing_keys.add(key)
                unresolved_files[key].add(rel)
                unresolved_occ[key] += occ
                members[key][qual] += 1
        for name, occ in fu.methods.items():
            uses_total += 1
            method_uses += 1
            occ_total += occ
            if resolver.has_method(name):
                uses_ok += 1
                method_ok += 1
                occ_ok += occ
            else:
                key = METHOD_PREFIX + name
                raw_missing = True
                missing_keys.add(key)
                unresolved_files[key].add(rel)
                unresolved_occ[key] += occ
        if not uses_family:
            plain_files += 1
        if not missing_keys:
            full_files += 1
            if not uses_family:
                plain_full += 1
        if not raw_missing:
            raw_full_files += 1
        if len(missing_keys) == 1:
            single[next(iter(missing_keys))].append(rel)
        if missing_keys:
            blocked.append(missing_keys)

    def pct(a: int, b: int) -> float:
        return round(100.0 * a / b, 2) if b else 0.0

    top = sorted(unresolved_files, key=lambda k: (-len(unresolved_files[k]), -unresolved_occ[k], k))
    # greedy: the name whose addition fully resolves most further files, again and again
    unlock = []
    remaining = [set(b) for b in blocked]
    done = full_files
    for _ in range(40):
        gain: Counter = Counter()
        for b in remaining:
            if b:
                gain.update(b)
        if not gain:
            break
        # the name that completes most files now; ties by files using it
        best = max(gain, key=lambda k: (sum(1 for b in remaining if b == {k}), gain[k], k))
        freed = sum(1 for b in remaining if b == {best})
        for b in remaining:
            b.discard(best)
        remaining = [b for b in remaining if b]
        done += freed
        unlock.append({"name": best, "files_freed": freed, "files_fully_resolved": done,
                       "pct": pct(done, m.parsed)})
    return {
        "files": m.files,
        "repositories": len(m.repos),
        "parsed": m.parsed,
        "unparsed": len(m.unparsed),
        "unparsed_files": sorted(m.unparsed),
        "files_fully_resolved": full_files,
        "files_fully_resolved_pct": pct(full_files, m.parsed),
        "files_fully_resolved_counting_names_torch_lacks": raw_full_files,
        "files_without_torch_family_imports": plain_files,
        "files_without_torch_family_imports_fully_resolved": plain_full,
        "files_without_torch_family_imports_fully_resolved_pct": pct(plain_full, plain_files),
        "uses": uses_total,
        "uses_resolved": uses_ok,
        "uses_resolved_pct": pct(uses_ok, uses_total),
        "occurrences": occ_total,
        "occurrences_resolved": occ_ok,
        "occurrences_resolved_pct": pct(occ_ok, occ_total),
        "torch_name_uses": name_uses,
        "torch_name_uses_resolved_pct": pct(name_ok, name_uses),
        "tensor_method_uses": method_uses,
        "tensor_method_uses_resolved_pct": pct(method_ok, method_uses),
        "files_with_star_import_from_torch": star_files,
        "unresolved": [
            {"name": k, "files": len(unresolved_files[k]),
             "repositories": len({f.split("/", 1)[0] for f in unresolved_files[k]}),
             "occurrences": unresolved_occ[k],
             "used_as": [[q, c] for q, c in members[k].most_common(12)] if k in members else [],
             "example_files": sorted(unresolved_files[k])[:3]}
            for k in top
        ],
        "greedy_unlock": unlock,
        "single_blockers": [
            {"name": k, "files": len(v), "paths": sorted(v)}
            for k, v in sorted(single.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ],
        "names_torch_lacks": [
            {"name": q, "files": len(f), "example_files": sorted(f)[:3]}
            for q, f in sorted(lacking_files.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        ],
        "torch_family_imports": dict(family_files.most_common()),
        "top_imports": dict(import_files.most_common(40)),
    }


# --------------------------------------------------------------------------- report


def render(res: dict, against: str, ambiguous: list[str], command: str, top: int = 150) -> str:
    out = [f"# Corpus measurement against `{against}`", "", f"Command: `{command}`", ""]
    out += [
        "| figure | value |", "| --- | --- |",
        f"| files | {res['files']} |",
        f"| repositories | {res['repositories']} |",
        f"| parsed (Python 3.11 `ast`) | {res['parsed']} ({res['unparsed']} do not parse) |",
        f"| files whose every torch name and Tensor method resolves | {res['files_fully_resolved']} "
        f"({res['files_fully_resolved_pct']}% of parsed) |",
        f"| uses (distinct names per file) resolved | {res['uses_resolved']} / {res['uses']} "
        f"({res['uses_resolved_pct']}%) |",
        f"| occurrences resolved | {res['occurrences_resolved']} / {res['occurrences']} "
        f"({res['occurrences_resolved_pct']}%) |",
        f"| torch-name uses resolved | {res['torch_name_uses_resolved_pct']}% of {res['torch_name_uses']} |",
        f"| Tensor-method uses resolved | {res['tensor_method_uses_resolved_pct']}% of "
        f"{res['tensor_method_uses']} |",
        f"| files fully resolved, also counting names torch {TORCH_VERSION} lacks | "
        f"{res['files_fully_resolved_counting_names_torch_lacks']} |",
        f"| files importing no torchvision/torchaudio/torchtext/... that fully resolve | "
        f"{res['files_without_torch_family_imports_fully_resolved']} / {res['files_without_torch_family_imports']} "
        f"({res['files_without_torch_family_imports_fully_resolved_pct']}%) |",
        f"| files with `from torch... import *` | {res['files_with_star_import_from_torch']} |",
        "",
        "Files importing torch-family packages that are not torch (not measured): "
        + ", ".join(f"{k} {v}" for k, v in res["torch_family_imports"].items()),
        "",
        f"## Top {top} unresolved names", "",
        "A name is the shortest unresolved prefix of the uses (`Tensor.x`: a Tensor method); "
        "files = files using it, repositories = repositories those files come from; "
        "`used as` = the full names used under it (files).", "",
        "| # | name | files | repositories | occurrences | used as |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for i, u in enumerate(res["unresolved"][:top], 1):
        used = ", ".join(f"`{q}` {c}" for q, c in u["used_as"][:8] if q != u["name"]) if u["used_as"] else ""
        out.append(f"| {i} | `{u['name']}` | {u['files']} | {u['repositories']} | {u['occurrences']} | {used} |")
    out += ["", "## Names in the order that frees most files", "",
            "Adding the names in this order (each the one that then completes most files) makes this "
            "many files fully resolved:", "",
            "| # | name | files freed | files fully resolved |", "| --- | --- | --- | --- |"]
    for i, g in enumerate(res.get("greedy_unlock", [])[:30], 1):
        out.append(f"| {i} | `{g['name']}` | {g['files_freed']} | {g['files_fully_resolved']} ({g['pct']}%) |")
    out += ["", "## Files that fail on exactly one name", "",
            "| name | files | paths |", "| --- | --- | --- |"]
    for b in res["single_blockers"]:
        paths = "<br>".join(b["paths"][:8]) + (f"<br>... {len(b['paths']) - 8} more" if len(b["paths"]) > 8 else "")
        out.append(f"| `{b['name']}` | {b['files']} | {paths} |")
    out += ["", f"## Names torch {TORCH_VERSION} itself lacks (left out of the figures)", ""]
    if res["names_torch_lacks"]:
        out += ["| name | files | example |", "| --- | --- | --- |"]
        for n in res["names_torch_lacks"]:
            out.append(f"| `{n['name']}` | {n['files']} | {n['example_files'][0]} |")
    else:
        out.append("none")
    listed = res.get("ambiguous_listed_types", ambiguous)
    also = res.get("ambiguous_also", [])
    out += ["", "## Ambiguous Tensor attribute names (not counted as Tensor methods)", "",
            f"Attributes of {', '.join(AMBIGUOUS_TYPES)}: " + ", ".join(f"`{a}`" for a in listed), ""]
    if also:
        out += [f"Also attributes of {', '.join(AMBIGUOUS_TYPES_ALSO)}: " + ", ".join(f"`{a}`" for a in also), ""]
    out += [f"Attributes read on `{'`, `'.join(OWN_OBJECTS)}` and on names bound by non-torch imports are "
            "never counted as Tensor methods.", "",
            "## Files that do not parse", ""]
    out += [f"- {p}" for p in res["unparsed_files"]] or ["none"]
    out += ["", "## Most imported top-level modules (files)", "",
            ", ".join(f"{k} {v}" for k, v in res["top_imports"].items()), ""]
    return "\n".join(out)


# --------------------------------------------------------------------------- CLI


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Measure how much of a PyTorch corpus resolves.")
    ap.add_argument("--corpus", type=Path, default=Path("/work/corpus"))
    ap.add_argument("--against", choices=["arraygrad", "torch"], default="arraygrad")
    ap.add_argument("--json", type=Path, help="write every figure and list here")
    ap.add_argument("--report", type=Path, help="write the Markdown report here (default: stdout)")
    ap.add_argument("--top", type=int, default=150)
    ap.add_argument("--reference", type=Path, default=REFERENCE,
                    help="torch facts used when torch is not installed")
    ap.add_argument("--write-reference", action="store_true",
                    help="remake --reference from the torch installed here and this corpus")
    args = ap.parse_args(argv)

    ref = load_reference(args.reference)
    try:
        facts = torch_facts()
        have_torch = True
    except ImportError:
        have_torch = False
        if not ref:
            print(f"torch is not installed and {args.reference} is missing", file=sys.stderr)
            return 2
        facts = ref
    if have_torch and not facts["torch_version"].startswith(TORCH_VERSION):
        print(f"warning: torch {facts['torch_version']} here, the measure is defined on {TORCH_VERSION}",
              file=sys.stderr)
    tensor_names = set(facts["tensor_attributes"])
    ambiguous = set(facts["ambiguous"])

    m = scan(args.corpus, tensor_names, ambiguous)

    if have_torch:
        torch_resolver = Resolver("torch")

        def torch_lacks(qual: str) -> bool:
            return torch_resolver.missing(qual) is not None
    else:
        lacking = set(ref.get("torch_lacks", []))

        def torch_lacks(qual: str) -> bool:
            return qual in lacking

    if args.write_reference:
        if not have_torch:
            print("--write-reference needs torch installed", file=sys.stderr)
            return 2
        quals = sorted({q for fu in m.per_file.values() for q in fu.names})
        data = dict(facts)
        data["torch_lacks"] = [q for q in quals if torch_lacks(q)]
        args.reference.write_text(json.dumps(data, indent=1) + "\n")
        print(f"wrote {args.reference}", file=sys.stderr)

    resolver = Resolver(args.against)
    if resolver.root_error:
        print(f"cannot import {args.against}: {resolver.root_error}", file=sys.stderr)
        return 2
    res = evaluate(m, resolver, torch_lacks)
    res["against"] = args.against
    res["torch_checked_live"] = have_torch
    res["ambiguous"] = sorted(ambiguous)
    res["ambiguous_listed_types"] = facts.get("ambiguous_listed_types", sorted(ambiguous))
    res["ambiguous_also"] = facts.get("ambiguous_also", [])
    command = "python tools/corpus/measure.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    text = render(res, args.against, sorted(ambiguous), command.strip(), args.top)
    if args.report:
        args.report.write_text(text)
    else:
        print(text)
    print(f"{res['files']} files, {res['repositories']} repositories, {res['parsed']} parsed; "
          f"{res['files_fully_resolved_pct']}% of files fully resolved; "
          f"{res['uses_resolved_pct']}% of uses ({res['occurrences_resolved_pct']}% of occurrences) resolved "
          f"against {args.against}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
