"""The import graph of ``core/arraygrad``, read from the source, and its cycles.

Run ``python tests/plugins/import_graph.py`` to print the strongly connected
components (cycles) of two graphs over the package's modules:

* ``import-time``: imports run when a module is imported (anywhere but a
  function body: module level, ``if``/``try`` blocks, class bodies);
* ``all``: every import, lazy ones inside functions included -- the
  dependencies a module has once it runs.

An edge goes to the most specific module named (``from arraygrad.ops import
registry`` is an edge to ``arraygrad.ops.registry``); the parent packages an
import also runs are not edges, or every module would sit in a cycle with
``arraygrad/__init__.py``. ``importlib.import_module("arraygrad...")`` with a
constant name counts as an import.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = "arraygrad"
CORE = Path(__file__).resolve().parents[2] / "core"


def modules(root: Path = CORE) -> dict[str, Path]:
    """Every module of the package, by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _resolve(name: str, known: dict) -> str | None:
    """The most specific known module a dotted name lies in, or None (outside the package)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _imported_names(node, module: str, is_package: bool) -> list[str]:
    """The dotted names an import node (or ``import_module`` call) asks for."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:
            base = module if is_package else module.rpartition(".")[0]
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            prefix = f"{base}.{node.module}" if node.module else base
        else:
            prefix = node.module or ""
        return [f"{prefix}.{a.name}" for a in node.names] + [prefix]
    func = node.func
    fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if fname in ("import_module", "__import__") and node.args:
        arg = node.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return [arg.value]
    return []


class _Collector(ast.NodeVisitor):
    """Import targets of one module, each marked lazy (inside a function) or not."""

    def __init__(self, module: str, is_package: bool, known: dict):
        self.module, self.is_package, self.known = module, is_package, known
        self.depth = 0
        self.edges: set[tuple[str, bool]] = set()

    def _function(self, node) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _function

    def visit_If(self, node) -> None:
        """``if TYPE_CHECKING:`` blocks never run: their imports are for the type checker."""
        test = node.test
        name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", None)
        if name == "TYPE_CHECKING":
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def _import(self, node) -> None:
        names = _imported_names(node, self.module, self.is_package)
        if isinstance(node, ast.ImportFrom):
            # ``from a.b import c``: the submodule a.b.c when it is one, else a.b itself
            *members, prefix = names
            targets = [m for m in members if m in self.known] or [prefix]
        else:
            targets = names
        for name in targets:
            target = _resolve(name, self.known)
            if target is not None and target != self.module:
                self.edges.add((target, self.depth > 0))
        self.generic_visit(node)

    visit_Import = visit_ImportFrom = visit_Call = _import


def graph(lazy: bool = True, root: Path = CORE) -> dict[str, set[str]]:
    """Module -> the package modules it imports (``lazy``: count imports inside functions)."""
    known = modules(root)
    out = {}
    for name, path in known.items():
        collector = _Collector(name, path.name == "__init__.py", known)
        collector.visit(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
        out[name] = {target for target, is_lazy in collector.edges if lazy or not is_lazy}
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, each sorted (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:  # the package has ~150 modules: recursion depth is fine
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(found, key=lambda c: (-len(c), c))


def main() -> int:
    """Print the cycles of both graphs."""
    for label, lazy in (("import-time", False), ("all (lazy imports included)", True)):
        found = cycles(graph(lazy=lazy))
        print(f"{label}: {len(found)} cycle(s)")
        for component in found:
            print(f"  {len(component)} modules: {', '.join(component)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
