"""How far the function transforms (``arraygrad.func``) leak into the layers below them.

Three figures, read statically from the source (nothing is imported):

- *upward imports*: imports (at any depth, lazy ones inside functions too, and
  ``import_module`` of a constant name) outside ``arraygrad/func/`` of ``arraygrad.func`` or a
  module below it (the package root, which may re-export the transforms lazily, aside);
- *vmap lines*: code lines outside ``arraygrad/func/`` (and outside ``transform_state``, the
  levels' home) that touch vmap's level machinery: a name or a (non-docstring) string
  literal matching ``VMAP_WORDS``; comments and docstrings are prose and not counted;
- *import cycles*: the strongly connected components of the module import graph of
  ``arraygrad`` (every import, lazy ones included), each with its members; and those of the
  graph of the imports run at import time. The graph is ``tests/plugins/import_graph.py``'s,
  the one ``tests/plugins/test_import_layers.py`` holds to its allowed cycles.

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
sys.path.insert(0, str(ROOT / "tests" / "plugins"))
import import_graph  # noqa: E402  (the package's import graph: tests/plugins/test_import_layers.py)

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


def in_func(mod: str) -> bool:
    return mod == FUNC or mod.startswith(FUNC + ".")


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """``module -> module of func`` for each import of ``arraygrad.func`` from outside it (the
    package root, which may re-export the transforms lazily, aside)."""
    return sorted(f"{mod} -> {target}" for mod, targets in graph.items()
                  if not in_func(mod) and mod != "arraygrad"
                  for target in targets if in_func(target))


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


def measure() -> dict[str, Any]:
    """The three figures (see the module doc) as one dict."""
    mods = import_graph.modules()
    graph = import_graph.graph(lazy=True)
    vmap: dict[str, list[tuple[int, str]]] = {}
    for m, p in mods.items():
        if in_func(m) or m == HOME:
            continue
        found = vmap_lines(p)
        if found:
            vmap[str(p.relative_to(ROOT))] = found
    return {"upward_imports": upward_imports(graph),
            "vmap_lines": sum(len(v) for v in vmap.values()), "vmap_files": len(vmap),
            "vmap_by_file": {f: [f"{n}: {s}" for n, s in v] for f, v in vmap.items()},
            "home_lines": [f"{n}: {s}" for n, s in vmap_lines(mods[HOME])] if HOME in mods else [],
            "cycles": import_graph.cycles(graph),
            "import_time_cycles": import_graph.cycles(import_graph.graph(lazy=False))}


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
