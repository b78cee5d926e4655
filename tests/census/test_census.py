"""The census of PyTorch's public surface: every public name of the census modules is present in
arraygrad or listed with a reason in ``core/arraygrad/absences.toml``, and every keyword PyTorch's
callables take is accepted by arraygrad's (measured by calling: wrappers hide keywords from
``inspect``) or listed. The census itself runs in a subprocess, since calling every callable with
a probe value may change global state (``tools/census``).
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "census"))
import surface  # noqa: E402  (imports nothing heavy: the module list)

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="the census reads PyTorch's surface from "
                                 "PyTorch, which is not installed (.ci/run installs it)")


def _leftovers(session: int) -> bool:
    """Whether any process of the census's session is still alive (killing them if so)."""
    try:
        os.killpg(session, signal.SIGKILL)
    except ProcessLookupError:
        return False
    return True


@pytest.fixture(scope="module")
def census(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    out = tmp_path_factory.mktemp("census") / "census.json"
    # its own session, and its output in files: a process the probes start and leave behind
    # (a probe once made the standard library's Pool fork two workers that never exited) then
    # cannot hold the test's pipes open, and is found and killed below
    with open(out.with_suffix(".err"), "w+") as err:
        child = subprocess.Popen([sys.executable, str(ROOT / "tools" / "census" / "census.py"),
                                  "--keywords", "--json", str(out)], stdout=subprocess.DEVNULL,
                                 stderr=err, cwd=ROOT, start_new_session=True)
        try:
            returncode = child.wait(timeout=900)
        finally:
            left_behind = _leftovers(child.pid)
        err.seek(0)
        assert returncode == 0, err.read()[-4000:]
    assert not left_behind, "the census's probe calls left processes running"
    return {entry["module"]: entry for entry in json.loads(out.read_text())}


@needs_torch
@pytest.mark.parametrize("module", surface.MODULES)
def test_every_public_name_is_present_or_listed(census, module):
    result = census[module]
    assert not result["missing"], (
        f"{module}: {len(result['missing'])} public names are neither in arraygrad nor listed in "
        f"core/arraygrad/absences.toml: {result['missing']}")
    assert result["present"] or result["listed"], f"{module}: the census found no names"


@needs_torch
@pytest.mark.parametrize("module", surface.MODULES)
def test_no_listed_name_is_present_or_unknown(census, module):
    assert not census[module]["stale"], (
        f"{module}: listed as absent, but arraygrad has it or PyTorch does not: "
        f"{census[module]['stale']}; remove these entries from absences.toml")


@needs_torch
@pytest.mark.parametrize("module", surface.MODULES)
def test_every_keyword_is_accepted_or_listed(census, module):
    result = census[module]
    assert not result["keywords_missing"], (
        f"{module}: arraygrad refuses keywords PyTorch takes: {result['keywords_missing']}")


def test_table_sections_are_the_census_modules():
    from arraygrad import absences
    assert set(absences.table()) <= set(surface.MODULES), (
        set(absences.table()) - set(surface.MODULES))


def test_every_shared_reason_is_used_and_no_reason_is_empty():
    import tomllib
    from arraygrad import absences
    raw = tomllib.loads((ROOT / "core" / "arraygrad" / "absences.toml").read_text())
    shared = {f"{area}.{key}" for area, keys in raw["reasons"].items() for key in keys}
    used = {reason[1:] for module, entries in raw.items() if module != "reasons"
            for reason in entries.values() if reason.startswith("@")}
    assert shared <= used, f"shared reasons nobody uses: {shared - used}"
    for module, entries in absences.table().items():
        for name, reason in entries.items():
            assert len(reason.split()) >= 3, f"{module}.{name}: a reason says why: {reason!r}"


def test_differences_census_section_is_generated_from_the_table():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "census" / "docs.py"), "--check"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
