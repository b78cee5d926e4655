"""How far the function transforms (``arraygrad.func``) leak into the layers below them.

Three figures, read statically from the source (nothing is imported):

- *upward imports*: ``import``/``from`` statements (at any depth, lazy ones inside functions
  too) outside ``arraygrad/func/`` that name ``arraygrad.func`` or a module below it;
- *vmap lines*: code lines outside ``arraygrad/func/`` (and outside ``transform_state``, the
  levels' home) that touch vmap's level machinery: a name or a (non-docstring) string
  literal matching ``VMAP_WORDS``; comments and docstrings are prose and not counted;
- *import cycles*: the strongly connected components of the module import graph of
  ``arraygrad`` (every import statement, lazy ones included), each with its members; and
  those of the graph of the imports run at import time (module level, not under
  ``TYPE_CHECKING``).

``python tools/imports/transform_leaks.py`` prints them; ``--json`` prints one JSON object;
``--lines`` also lists the vmap lines. ``tests/tools/test_transform_leaks.py`` holds the
targets.
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import sys
import tokenize
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "core" / "arraygrad"
FUNC = "arraygrad.func"
# The designated home of the transforms' state (vmap's level stack among it): its own lines
# are where the levels belong, so they are listed apart and not counted as leaks.
HOME = "arraygrad.transform_state"

# Identifiers of vmap's levels and of lifting an unbatched operand onto one (names and string
# literals: ``getattr(x, "leave_levels", None)`` asks for the machinery by name too); the
# public transform itself (``vmap(f)``) is not machinery.
VMAP_WORDS = re.compile(r"vmap_level|lifted|^lift$|leave_levels|_on_key_level|check_write"
                        r"|batching_generator|BatchedArray|BatchingBackend|_arraygrad_batched")
# A string literal naming a level attribute (``getattr(data, "level", None)``): vmap's arrays
# are the only ones with one.
VMAP_STRINGS = re.compile(r"^level$")


def module_name(path: Path) -> str:
    """The dotted name of a source file of the package."""
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def sources() -> dict[str, Path]:
    """Every module of ``arraygrad``: dotted name -> file."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _resolve(mod: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".") if is_package else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _import_time(tree: ast.Module) -> list[ast.stmt]:
    """The import statements a module runs when it is imported: at module level (inside
    ``if``/``try``/``with`` blocks too), not in functions, not under ``if TYPE_CHECKING``."""
    found: list[ast.stmt] = []
    todo: list[ast.stmt] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If):
            test = ast.unparse(node.test)
            if "TYPE_CHECKING" not in test:
                todo.extend(node.body)
            todo.extend(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *[h.body for h in node.handlers]):
                todo.extend(block)
        elif isinstance(node, ast.With):
            todo.extend(node.body)
    return found


def imports_of(mod: str, path: Path, known: set[str],
               import_time: bool = False) -> list[tuple[str, int]]:
    """``(imported module, line)`` for every import statement of a file (``import_time``:
    those run on import only): a ``from X import y`` names ``X.y`` when that is a module,
    else ``X``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in (_import_time(tree) if import_time else ast.walk(tree)):
        if isinstance(node, ast.Import):
            found.extend((a.name, node.lineno) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(mod, path.name == "__init__.py", node)
            for a in node.names:
                sub = f"{target}.{a.name}"
                found.append((sub if sub in known else target, node.lineno))
    return found


def _owner(name: str, known: set[str]) -> str | None:
    """The module of ``arraygrad`` an imported name belongs to (its longest known prefix)."""
    parts = name.split(".")
    while parts:
        cand = ".".join(parts)
        if cand in known:
            return cand
        parts.pop()
    return None


def in_func(mod: str) -> bool:
    return mod == FUNC or mod.startswith(FUNC + ".")


def upward_imports(graph_lines: dict[str, list[tuple[str, int]]]) -> list[str]:
    """``file:line -> module`` for each import of ``arraygrad.func`` from outside it."""
    out = []
    for mod, edges in graph_lines.items():
        if in_func(mod):
            continue
        for target, line in edges:
            if in_func(target):
                out.append(f"{mod}:{line} -> {target}")
    return out


def _docstring_lines(tree: ast.AST) -> set[int]:
    """The lines of docstrings: every string that is a statement of its own (a module's,
    class's or function's docstring, or an attribute's after its assignment)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    return lines


def vmap_lines(path: Path) -> list[tuple[int, str]]:
    """The code lines of a file touching vmap's level machinery (see the module doc)."""
    text = path.read_text(encoding="utf-8")
    docs = _docstring_lines(ast.parse(text))
    hits: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME:
            found = VMAP_WORDS.search(tok.string)
        elif tok.type == tokenize.STRING and tok.start[0] not in docs:
            word = tok.string.strip("\"'rbuf")
            found = VMAP_WORDS.search(word) or VMAP_STRINGS.search(word)
        else:
            continue
        if found:
            hits.add(tok.start[0])
    lines = text.splitlines()
    return [(n, lines[n - 1].strip()) for n in sorted(hits)]


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    comps: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, it = work[-1]
            advanced = False
            for nxt in it:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return sorted(comps, key=lambda c: (-len(c), c))


def _graph(lines: dict[str, list[tuple[str, int]]], known: set[str]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in lines}
    for m, edges in lines.items():
        for target, _ in edges:
            owner = _owner(target, known) if target.startswith("arraygrad") else None
            if owner is not None and owner != m:
                graph[m].add(owner)
    return graph


def measure() -> dict[str, Any]:
    """The three figures (see the module doc) as one dict."""
    mods = sources()
    known = set(mods)
    graph_lines = {m: imports_of(m, p, known) for m, p in mods.items()}
    graph = _graph(graph_lines, known)
    at_import = _graph({m: imports_of(m, p, known, True) for m, p in mods.items()}, known)
    vmap: dict[str, list[tuple[int, str]]] = {}
    for m, p in mods.items():
        if in_func(m) or m == HOME:
            continue
        found = vmap_lines(p)
        if found:
            vmap[str(p.relative_to(ROOT))] = found
    comps = cycles(graph)
    return {"upward_imports": upward_imports(graph_lines),
            "vmap_lines": sum(len(v) for v in vmap.values()), "vmap_files": len(vmap),
            "vmap_by_file": {f: [f"{n}: {s}" for n, s in v] for f, v in vmap.items()},
            "home_lines": [f"{n}: {s}" for n, s in vmap_lines(mods[HOME])] if HOME in mods else [],
            "cycles": comps, "import_time_cycles": cycles(at_import)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--lines", action="store_true", help="list the vmap lines")
    args = parser.parse_args(argv)
    found = measure()
    if args.json:
        json.dump(found, sys.stdout, indent=1)
        print()
        return 0
    print(f"upward imports into {FUNC}: {len(found['upward_imports'])}")
    for item in found["upward_imports"]:
        print(f"  {item}")
    print(f"vmap lines outside func/: {found['vmap_lines']} in {found['vmap_files']} files")
    for f, lines in found["vmap_by_file"].items():
        print(f"  {f}: {len(lines)}")
        if args.lines:
            for line in lines:
                print(f"      {line}")
    print(f"  (not counted: {len(found['home_lines'])} in {HOME}, their home)")
    print(f"import cycles (strongly connected components): {len(found['cycles'])}")
    for comp in found["cycles"]:
        print(f"  {len(comp)} modules: {', '.join(comp)}")
    print(f"import cycles at import time (module-level imports only): "
          f"{len(found['import_time_cycles'])}")
    for comp in found["import_time_cycles"]:
        print(f"  {len(comp)} modules: {', '.join(comp)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
