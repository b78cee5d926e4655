"""How far ``arraygrad.compile`` reaches into the layers below it (issue 26).

Prints two numbers over ``core/arraygrad`` (``--json`` for a machine-readable report):

- *upward imports*: import statements (module level or inside a function, ``import x``,
  ``from x import y``, ``importlib.import_module("x")``) in a module outside
  ``arraygrad/compiler/`` that name ``arraygrad.compiler`` or a module in it. The layers
  above the compiler that are built on it are not counted: the package's own
  ``__init__`` (its lazy ``arraygrad.compile``), ``arraygrad._dynamo`` (``torch._dynamo``'s
  names for the compiler's controls) and ``arraygrad.onnx`` (the exporter records a call
  with the compiler's recorder).
- *compile-aware lines*: lines of code outside those layers that use the compile
  protocol: an import of ``arraygrad.compiler`` or the compile section of
  ``arraygrad.transform_state``, a use of a name taken from them (``recording_flag``,
  ``replay_unit``, ``compile_hooks``, ``compile_epochs``...), or of a protocol attribute
  (a live scalar's ``live_apply``, the flag's ``read_live``, an optimizer's
  ``_compile_key``/``_state_key``), also as a string (``hasattr(x, "live_apply")``).
  ``transform_state.hooks`` and ``array_kernel`` are not the compile protocol: they are the
  slots any transform that records array calls installs from above (None outside one), and
  a fact about a function; ``--hooks`` counts the lines using them, apart.

    python tools/compile_layers.py [--json] [--by-file]
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "core" / "arraygrad"
ABOVE = ("compiler", "_dynamo", "onnx")  # the compiler and the layers built on it
PROTOCOL = ("arraygrad.compiler",)
COMPILE_NAMES = frozenset({"RecordingFlag", "recording_flag", "compile_hooks", "compile_epochs",
                           "replay_unit", "unit_function"})  # transform_state's compile section
# attributes that belong to the protocol: an optimizer's old guard keys, a live scalar's method
HOOK_NAMES = frozenset({"hooks", "TransformHooks", "array_kernel", "kernel_function"})
METHODS = frozenset({"_compile_key", "_state_key", "live_apply", "read_live", "live_operand"})


def _below(path: Path) -> bool:
    rel = path.relative_to(ROOT)
    # (``transform_state`` is the leaf where the protocol's flag is defined, not a user of it)
    return rel.parts[0] not in ABOVE and rel not in (Path("__init__.py"),
                                                     Path("transform_state.py"))


def _names_compiler(module: str) -> bool:
    return module == "arraygrad.compiler" or module.startswith("arraygrad.compiler.")


def hook_lines(path: Path) -> set[int]:
    """The lines of one file using the transform hooks (``transform_state.hooks``,
    ``array_kernel``): its import of them and every use of the names it took."""
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "arraygrad.transform_state":
            taken = [a for a in node.names if a.name in HOOK_NAMES]
            if taken:
                lines.add(node.lineno)
                names.update(a.asname or a.name for a in taken)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names:
            lines.add(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr == "hooks" and isinstance(
                node.value, ast.Name) and node.value.id == "_transforms":
            lines.add(node.lineno)
    return lines


def scan(path: Path) -> tuple[int, set[int]]:
    """``(upward imports, compile-aware line numbers)`` of one file."""
    tree = ast.parse(path.read_text(), str(path))
    upward = 0
    lines: set[int] = set()
    aliases: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            mod = node.module
            names = [a.name for a in node.names]
            if _names_compiler(mod) or (mod == "arraygrad" and "compiler" in names):
                upward += 1
            if mod.startswith(PROTOCOL) or (mod == "arraygrad" and "compiler" in names) or (
                    mod == "arraygrad.transform_state"
                    and any(n in COMPILE_NAMES for n in names)):
                lines.add(node.lineno)
                aliases.update(a.asname or a.name for a in node.names
                               if mod != "arraygrad.transform_state" or a.name in COMPILE_NAMES)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if _names_compiler(a.name):
                    upward += 1
                if a.name.startswith(PROTOCOL):
                    lines.add(node.lineno)
                    aliases.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module" \
                and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str) and _names_compiler(node.args[0].value):
            upward += 1
            lines.add(node.lineno)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in aliases:
            lines.add(node.lineno)
        elif isinstance(node, ast.Attribute) and node.attr in METHODS:
            lines.add(node.lineno)
        elif isinstance(node, ast.FunctionDef) and node.name in METHODS:
            lines.add(node.lineno)
        elif isinstance(node, ast.Constant) and node.value in METHODS:
            lines.add(node.lineno)
    return upward, lines


def report() -> dict[str, object]:
    """The counts, overall and per file (files with none left out)."""
    files: dict[str, dict[str, int]] = {}
    hook_total = 0
    for path in sorted(ROOT.rglob("*.py")):
        if not _below(path):
            continue
        hook_total += len(hook_lines(path))
        upward, lines = scan(path)
        if upward or lines:
            files[str(path.relative_to(ROOT))] = {"upward_imports": upward,
                                                  "compile_aware_lines": len(lines)}
    by_area: Counter[str] = Counter()
    for name, counts in files.items():
        by_area[name.split("/")[0]] += counts["compile_aware_lines"]
    return {"upward_imports": sum(f["upward_imports"] for f in files.values()),
            "compile_aware_lines": sum(f["compile_aware_lines"] for f in files.values()),
            "compile_aware_lines_by_area": dict(by_area.most_common()),
            "transform_hook_lines": hook_total,
            "files": files}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    parser.add_argument("--by-file", action="store_true", help="list the counts per file")
    parser.add_argument("--hooks", action="store_true",
                        help="also count the lines using the transform hooks")
    args = parser.parse_args(argv)
    found = report()
    if args.json:
        print(json.dumps(found, indent=1))
        return 0
    print(f"upward imports into compiler/: {found['upward_imports']}")
    print(f"compile-aware lines outside compiler/: {found['compile_aware_lines']} "
          f"{found['compile_aware_lines_by_area']}")
    if args.hooks:
        print(f"lines using the transform hooks (any transform's): "
              f"{found['transform_hook_lines']}")
    if args.by_file:
        for name, counts in found["files"].items():  # type: ignore[union-attr]
            print(f"  {name}: {counts['upward_imports']} imports, "
                  f"{counts['compile_aware_lines']} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
