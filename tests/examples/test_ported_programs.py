"""PyTorch programs ported by renaming the import (``examples/ported``) run to the end, and the
deterministic ones print PyTorch's numbers.

Each program imports ``arraygrad`` where the original imports ``torch``; renaming the imports
back gives the PyTorch program, which is run too where PyTorch is installed. Programs that draw
random numbers cannot print the same numbers (the generators differ), so they are held to
running to the end and learning (their last line reports a score); the deterministic ones
must print the same lines up to float formatting noise.
"""

from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

PORTED = pathlib.Path(__file__).resolve().parents[2] / "examples" / "ported"
PROGRAMS = sorted(p.name for p in PORTED.glob("*.py"))
# programs that draw no random numbers: their printed numbers must equal PyTorch's
DETERMINISTIC = {"polynomial_fit.py", "tensor_tour.py", "autograd_tour.py", "regression_fixed.py"}
# Lines that differ on purpose, each listed in docs/differences.md: (ours, PyTorch's)
KNOWN_TEXT_DIFFERENCES = {
    # losses are compositions of ops, so their grad_fn is the last op's node
    ("Gradient function for loss = MeanBackward0",
     "Gradient function for loss = BinaryCrossEntropyWithLogitsBackward0"),
}
_NUMBER = re.compile(r"-?\d+\.\d+(?:e[-+]?\d+)?")


def back_to_torch(source: str) -> str:
    """The original PyTorch program: every ``arraygrad`` in an import line becomes ``torch``."""
    out = []
    for line in source.splitlines():
        stripped = line.lstrip()
        if stripped.startswith(("import arraygrad", "from arraygrad")):
            line = line.replace("import arraygrad as torch", "import torch").replace("arraygrad", "torch")
        out.append(line)
    return "\n".join(out) + "\n"


def _run(code: str, tmp_path: pathlib.Path, name: str) -> str:
    script = tmp_path / name
    script.write_text(code)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path)
    assert done.returncode == 0, f"{name} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def _numbers(text: str) -> list[float]:
    return [float(v) for v in _NUMBER.findall(text)]


def test_every_program_is_listed():
    assert PROGRAMS, "examples/ported is empty"


@pytest.mark.parametrize("name", PROGRAMS)
def test_ported_program_runs_to_the_end(name, tmp_path):
    out = _run((PORTED / name).read_text(), tmp_path, name)
    assert out.strip(), f"{name} printed nothing"
    last = out.strip().splitlines()[-1]
    if last.startswith("final accuracy"):
        assert float(last.split()[-1]) > 0.2, out[-1500:]  # chance is 0.1


@needs_torch
@pytest.mark.parametrize("name", sorted(DETERMINISTIC & set(PROGRAMS)))
def test_deterministic_program_prints_pytorchs_numbers(name, tmp_path):
    source = (PORTED / name).read_text()
    ours = _run(source, tmp_path, name).replace("arraygrad", "torch")  # reprs name the module
    theirs = _run(back_to_torch(source), tmp_path, "torch_" + name)
    ours_lines, their_lines = ours.splitlines(), theirs.splitlines()
    assert len(ours_lines) == len(their_lines), (ours, theirs)
    for mine, want in zip(ours_lines, their_lines):
        if (mine, want) not in KNOWN_TEXT_DIFFERENCES:
            assert _NUMBER.sub("#", mine) == _NUMBER.sub("#", want), (mine, want)
    a, b = _numbers(ours), _numbers(theirs)
    assert len(a) == len(b), (ours, theirs)
    for x, y in zip(a, b):
        assert x == pytest.approx(y, rel=1e-5, abs=2e-6), (ours, theirs)
