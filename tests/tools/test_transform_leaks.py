"""The transforms plug in from above (issue 26): measured statically by
``tools/imports/transform_leaks.py``, held here so that they cannot regress."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "imports" / "transform_leaks.py"


@pytest.fixture(scope="module")
def leaks():
    spec = importlib.util.spec_from_file_location("transform_leaks", TOOL)
    module = importlib.util.module_from_spec(spec)
    sys.modules["transform_leaks"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def found(leaks):
    return leaks.measure()


def test_no_module_outside_func_imports_func(found):
    assert found["upward_imports"] == []


def test_vmap_machinery_stays_in_func(found):
    assert found["vmap_lines"] <= 5, found["vmap_by_file"]


def test_the_only_cycles_left_are_not_the_transforms(found):
    """(``tests/plugins/test_import_layers.py`` holds the cycles to its allowed list.)"""
    members = [m for comp in found["cycles"] for m in comp]
    assert [m for m in members if m.startswith("arraygrad.func")] == []
    assert "arraygrad.transform_state" not in members


def test_no_import_cycle_at_import_time(found):
    assert found["import_time_cycles"] == []


def test_transform_state_is_a_leaf():
    """It imports nothing of arraygrad, so that every layer may import it."""
    tree = ast.parse((ROOT / "core" / "arraygrad" / "transform_state.py").read_text())
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert [n for n in names if n.split(".")[0] == "arraygrad"] == []


def test_the_tool_sees_what_it_counts(leaks, tmp_path):
    """A leak of each kind is counted; prose and the package root's re-export are not."""
    src = tmp_path / "probe.py"
    src.write_text('"""Inside vmap, lifted."""\n'
                   "from arraygrad.random import vmap_levels  # inside vmap\n"
                   "x = 1  # vmap_levels lifted\n"
                   "y = getattr(x, 'leave_levels', None)\n")
    assert [n for n, _ in leaks.vmap_lines(src)] == [2, 4]
    graph = {"arraygrad.autograd.x": {"arraygrad.func._vmap"}, "arraygrad": {"arraygrad.func"},
             "arraygrad.func._vmap": {"arraygrad.ops"}}
    assert leaks.upward_imports(graph) == ["arraygrad.autograd.x -> arraygrad.func._vmap"]
