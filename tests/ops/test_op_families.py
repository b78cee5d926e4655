"""The op-family seam (``arraygrad.ops.families``): a family module's FUNCTIONS, METHODS and
INPLACE tables reach ``arraygrad.*`` and ``Tensor``, and a name defined twice is refused."""

import textwrap

import pytest

import arraygrad as ag
from arraygrad.ops import families


def test_every_family_name_is_exported_and_bound():
    tables = families.surface()
    for name, fn in tables["FUNCTIONS"].items():
        exported = getattr(ag, name)  # the function, or its out= wrapper (ops.out_arg)
        assert exported is fn or exported.__wrapped__ is fn
    for name, fn in tables["METHODS"].items():
        assert getattr(ag.Tensor, name) is fn
    for name in tables["INPLACE"]:
        assert callable(getattr(ag.Tensor, name))


def test_a_name_defined_by_two_families_is_refused(tmp_path, monkeypatch):
    for module in ("fam_a", "fam_b"):
        (tmp_path / f"{module}.py").write_text(textwrap.dedent("""
            FUNCTIONS = {"twice": lambda x: x}
        """))
    monkeypatch.setattr(families, "__path__", [str(tmp_path)])
    monkeypatch.setattr(families, "_cache", None)
    monkeypatch.setattr(families, "__name__", "fam_pkg")
    import sys
    import types

    pkg = types.ModuleType("fam_pkg")
    pkg.__path__ = [str(tmp_path)]
    monkeypatch.setitem(sys.modules, "fam_pkg", pkg)
    with pytest.raises(RuntimeError, match="'twice' defined by both fam_a and fam_b"):
        families.surface()


def test_family_tables_load_in_name_order(tmp_path, monkeypatch):
    (tmp_path / "fam_one.py").write_text('FUNCTIONS = {"one": abs}\nMETHODS = {"m": abs}\n')
    (tmp_path / "fam_two.py").write_text('INPLACE = {"i_": abs}\n')
    import sys
    import types

    pkg = types.ModuleType("fam_pkg2")
    pkg.__path__ = [str(tmp_path)]
    monkeypatch.setitem(sys.modules, "fam_pkg2", pkg)
    monkeypatch.setattr(families, "__path__", [str(tmp_path)])
    monkeypatch.setattr(families, "__name__", "fam_pkg2")
    monkeypatch.setattr(families, "_cache", None)
    assert families.surface() == {"FUNCTIONS": {"one": abs}, "METHODS": {"m": abs},
                                  "INPLACE": {"i_": abs}}
