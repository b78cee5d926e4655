"""The package's import graph keeps its layers: one inherent cycle, and no import upwards.

Two views of the graph (see ``import_graph.py``, also a script that prints the cycles):

* the static one, read from the source, with lazy imports inside functions counted: a lazy
  import is still a dependency, and it is how the old cycle through the plugin registry,
  the CLI's report and the legacy constructor hid;
* the import-time one, recorded in a fresh interpreter that imports every module of the
  package with ``__import__`` watched: which module's code imported which.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import import_graph  # noqa: E402

# The cycles the package is allowed to have, each with why it is inherent.
ALLOWED_CYCLES = [
    # Tensor.backward calls the autograd API, which runs the engine over the graph's nodes,
    # which make and hand back tensors.
    {"arraygrad.tensor", "arraygrad.autograd.graph", "arraygrad.autograd.engine",
     "arraygrad.autograd.api"},
    # (the profiler instruments the public namespace, ``arraygrad.<op>``, read from the
    # loaded package root, not imported: no cycle)
    # (``nn.Module.compile`` reaches the compiler through ``transform_state.compile_hooks``,
    # which the package fills: no module below the compiler imports it, so no cycle)
    # (the recorder, ops.rule, sits below every op module: the two ops it finishes gradients
    # with are handed to it, not imported, so no ops cycle is allowed)
]

# module (or package prefix ending in ".") -> prefixes it must never import, lazily or not
FORBIDDEN = {
    "arraygrad.tensor": ["arraygrad.plugins", "arraygrad.cli", "arraygrad.creation",
                         "arraygrad.ops", "arraygrad.nn", "arraygrad.tensor_methods",
                         "arraygrad.backends"],
    "arraygrad.autograd.api": ["arraygrad.ops", "arraygrad.creation", "arraygrad.nn",
                               "arraygrad.plugins", "arraygrad.cli"],
    "arraygrad.autograd.engine": ["arraygrad.ops", "arraygrad.creation", "arraygrad.nn",
                                  "arraygrad.plugins", "arraygrad.cli"],
    "arraygrad.autograd.graph": ["arraygrad.ops", "arraygrad.creation", "arraygrad.nn",
                                 "arraygrad.plugins", "arraygrad.cli"],
    "arraygrad.ops.": ["arraygrad.nn", "arraygrad.optim", "arraygrad.utils", "arraygrad.cli",
                       "arraygrad.conformance"],
    "arraygrad.plugins.": ["arraygrad.ops", "arraygrad.nn", "arraygrad.cli",
                           "arraygrad.tensor_methods", "arraygrad.creation"],
    "arraygrad.backends.": ["arraygrad.ops", "arraygrad.nn", "arraygrad.cli",
                            "arraygrad.tensor_methods", "arraygrad.plugins.registry"],
}

# the plugin manager is the bottom layer: it knows only its own hook specifications
MANAGER_MAY_IMPORT = {"arraygrad.plugins.hookspecs", "arraygrad.plugins.markers"}


def _matches(module: str, prefix: str) -> bool:
    if prefix.endswith("."):
        return module.startswith(prefix)
    return module == prefix or module.startswith(prefix + ".")


@pytest.fixture(scope="module")
def static_graph():
    return import_graph.graph(lazy=True)


def test_the_only_cycles_are_the_inherent_ones(static_graph):
    cycles = import_graph.cycles(static_graph)
    unexpected = [c for c in cycles if not any(set(c) <= allowed for allowed in ALLOWED_CYCLES)]
    assert unexpected == []
    tensor_cycle = next(c for c in cycles if "arraygrad.tensor" in c)
    assert set(tensor_cycle) == ALLOWED_CYCLES[0]


@pytest.mark.parametrize("module,forbidden", sorted(FORBIDDEN.items()))
def test_no_module_imports_a_layer_above_it(static_graph, module, forbidden):
    offenders = {m: sorted(t for t in targets if any(_matches(t, f) for f in forbidden))
                 for m, targets in static_graph.items() if _matches(m, module)}
    assert {m: t for m, t in offenders.items() if t} == {}
    assert any(_matches(m, module) for m in static_graph), f"no module {module}: rule is stale"


def test_plugin_manager_is_the_bottom_layer(static_graph):
    assert static_graph["arraygrad.plugins.manager"] <= MANAGER_MAY_IMPORT


def test_only_the_command_line_entry_imports_the_cli(static_graph):
    assert {m for m, targets in static_graph.items() if "arraygrad.cli" in targets} == {
        "arraygrad.__main__"}


def test_the_scanner_sees_lazy_relative_and_import_module_forms(tmp_path):
    pkg = tmp_path / "arraygrad"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "from arraygrad.sub import b\nimport importlib\n"
        "def f():\n    from . import c\n    importlib.import_module('arraygrad.sub')\n")
    (pkg / "c.py").write_text("import arraygrad.a\n")
    (pkg / "sub" / "__init__.py").write_text("from .b import thing\n")
    (pkg / "sub" / "b.py").write_text("thing = 1\n")
    assert import_graph.graph(lazy=True, root=tmp_path) == {
        "arraygrad": set(), "arraygrad.a": {"arraygrad.sub.b", "arraygrad.c", "arraygrad.sub"},
        "arraygrad.c": {"arraygrad.a"}, "arraygrad.sub": {"arraygrad.sub.b"},
        "arraygrad.sub.b": set()}
    assert import_graph.graph(lazy=False, root=tmp_path)["arraygrad.a"] == {"arraygrad.sub.b"}
    assert import_graph.cycles(import_graph.graph(lazy=True, root=tmp_path)) == [
        ["arraygrad.a", "arraygrad.c"]]


# -- import time, in a fresh interpreter ------------------------------------------------------

_RECORD_IMPORTS = r"""
import builtins, importlib, json, sys

MODULES = json.loads(sys.argv[1])
edges, real_import = set(), builtins.__import__


def watched(name, globals=None, locals=None, fromlist=(), level=0):
    module = real_import(name, globals, locals, fromlist, level)
    importer = (globals or {}).get("__name__", "")
    if importer.split(".")[0] == "arraygrad":
        target = (importlib.util.resolve_name("." * level + name, globals["__package__"])
                  if level else name)
        subs = [f"{target}.{f}" for f in fromlist or () if f"{target}.{f}" in sys.modules]
        for t in subs or [target]:
            if t.split(".")[0] == "arraygrad" and t != importer:
                edges.add((importer, t))
    return module


builtins.__import__ = watched
failed = {}
for name in MODULES:
    try:
        importlib.import_module(name)
    except Exception as exc:  # reported by the test, with the module's name
        failed[name] = f"{type(exc).__name__}: {exc}"
builtins.__import__ = real_import
print(json.dumps({"edges": sorted(edges), "failed": failed}))
"""


@pytest.fixture(scope="module")
def import_time_graph():
    import json
    import os
    import subprocess

    names = sorted(set(import_graph.modules()) - {"arraygrad.__main__"})  # that one runs the CLI
    env = {k: v for k, v in os.environ.items() if k != "ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD"}
    proc = subprocess.run([sys.executable, "-c", _RECORD_IMPORTS, json.dumps(names)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    edges = {name: set() for name in names}
    for importer, target in out["edges"]:
        edges.setdefault(importer, set()).add(target)
    return edges, out["failed"]


def _closure(edges, start: str) -> set:
    seen, todo = set(), [start]
    while todo:
        for target in edges.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


def test_every_module_imports(import_time_graph):
    _, failed = import_time_graph
    assert failed == {}


def test_import_time_graph_has_no_cycle(import_time_graph):
    edges, _ = import_time_graph
    assert import_graph.cycles(edges) == []


def test_tensor_does_not_import_the_registry_the_cli_or_the_ops_at_import_time(
        import_time_graph):
    edges, _ = import_time_graph
    reached = _closure(edges, "arraygrad.tensor")
    assert "arraygrad.autograd.graph" in reached  # the recording works
    assert {m for m in reached if any(_matches(m, f) for f in FORBIDDEN["arraygrad.tensor"])} \
        == set()


def test_the_static_graph_sees_every_import_that_runs(import_time_graph, static_graph):
    edges, _ = import_time_graph
    missed = {(m, t) for m, targets in edges.items() for t in targets
              if t not in static_graph.get(m, ())}
    assert missed == set()
