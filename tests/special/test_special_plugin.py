"""Runs the arraygrad-special plugin's own tests (plugins/special/tests) under ``make test``.

The plugin's test modules are loaded by path under private module names (so
they cannot clash with other test modules) and their tests re-exported here.
Skipped when the plugin is not installed (``pip install -e plugins/special``).
"""

import importlib.util
import pathlib

import pytest

pytest.importorskip("arraygrad_special", reason="arraygrad-special is not installed")
pytest.importorskip("scipy.special", reason="the special-function tests compare with scipy")

_TESTS = pathlib.Path(__file__).resolve().parents[2] / "plugins" / "special" / "tests"


def _load(path: pathlib.Path):
    spec = importlib.util.spec_from_file_location(f"_arraygrad_special_tests.{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


for _path in sorted(_TESTS.glob("test_*.py")):
    _module = _load(_path)
    for _name, _obj in vars(_module).items():
        if _name.startswith("test_") and callable(_obj):
            globals()[f"{_path.stem}__{_name[len('test_'):]}"] = _obj
del _path, _module, _name, _obj
