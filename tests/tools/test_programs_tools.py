"""tools/programs: the import hook that runs a PyTorch program on arraygrad, the shared random
stream that makes PyTorch draw arraygrad's numbers, the comparison of two outputs, and the
recipes (checked against the corpus only where it is present). Small synthetic programs only;
the shared stream needs PyTorch (skipped without it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "tools" / "programs"
sys.path.insert(0, str(TOOLS))

import compare  # noqa: E402
from recipes import RECIPES, Recipe  # noqa: E402

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="the shared stream patches PyTorch")


def _run(tool: str, program: str, tmp_path: Path, *options: str) -> subprocess.CompletedProcess:
    script = tmp_path / "prog.py"
    script.write_text(program)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    return subprocess.run([sys.executable, str(TOOLS / tool), *options, str(script), "a1"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)


def test_as_torch_answers_every_torch_import_with_arraygrads_module(tmp_path):
    program = """
import sys
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader
import arraygrad
assert torch is arraygrad and torch.__name__ == "arraygrad"
assert F is arraygrad.nn.functional and nn.Module is arraygrad.nn.Module
assert DataLoader is arraygrad.utils.data.DataLoader
assert "torch" in sys.modules and sys.modules["torch.nn"] is arraygrad.nn
print(__name__, sys.argv[1:], F.relu(torch.tensor([-1.0, 2.0])).tolist())
try:
    import torch.not_a_module
except ModuleNotFoundError as e:
    print("refused", e.name)
"""
    done = _run("as_torch.py", program, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["__main__ ['a1'] [0.0, 2.0]", "refused torch.not_a_module"]


def test_the_program_folder_comes_first_and_its_modules_see_the_hook(tmp_path):
    (tmp_path / "helper.py").write_text("import torch\nNAME = torch.__name__\n")
    done = _run("as_torch.py", "import helper\nprint(helper.NAME)\n", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "arraygrad"


def test_seed_and_default_dtype_options(tmp_path):
    program = "import torch, random\nprint(torch.get_default_dtype(), random.random(), torch.rand(2).tolist())\n"
    first = _run("as_torch.py", program, tmp_path, "--seed", "3", "--default-dtype", "float64")
    again = _run("as_torch.py", program, tmp_path, "--seed", "3", "--default-dtype", "float64")
    assert first.returncode == 0, first.stderr
    assert first.stdout == again.stdout and first.stdout.startswith("arraygrad.float64")


RANDOM_PROGRAM = """
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(7)
net = nn.Sequential(nn.Linear(4, 5), nn.Dropout(0.5), nn.Linear(5, 2))
emb = nn.Embedding(3, 2)
conv = nn.Conv2d(1, 2, 3)
values = [net(torch.ones(3, 4)), emb.weight, conv.weight, torch.randn(2, 3), torch.rand(3),
          torch.empty(4).uniform_(-1, 1), torch.empty(4).normal_(), torch.randint(0, 9, (4,)),
          torch.randperm(6), torch.multinomial(torch.tensor([0.2, 0.3, 0.5]), 5, True),
          torch.bernoulli(torch.full((5,), 0.5)), F.dropout(torch.ones(6), 0.3),
          torch.randperm(5, generator=torch.Generator().manual_seed(1))]
order = [int(i) for (i,) in DataLoader(TensorDataset(torch.arange(8)), shuffle=True)]
for v in values:
    print(" ".join(f"{x:.6f}" for x in v.detach().reshape(-1).tolist()))
print(order)
"""


@needs_torch
def test_under_the_shared_stream_pytorch_draws_arraygrads_numbers(tmp_path):
    on_torch = _run("shared_stream.py", RANDOM_PROGRAM, tmp_path)
    on_arraygrad = _run("as_torch.py", RANDOM_PROGRAM, tmp_path)
    assert on_torch.returncode == 0, on_torch.stderr
    assert on_arraygrad.returncode == 0, on_arraygrad.stderr
    a = [float(v) for v in compare.NUMBER.findall(on_torch.stdout)]
    b = [float(v) for v in compare.NUMBER.findall(on_arraygrad.stdout)]
    assert len(a) == len(b) > 60
    assert a == pytest.approx(b, rel=1e-5, abs=2e-6)  # products may round in another order


@needs_torch
def test_without_the_shared_stream_the_draws_differ(tmp_path):
    # the control: the agreement above is the shim's doing
    plain = _run("runner.py", RANDOM_PROGRAM, tmp_path)
    on_arraygrad = _run("as_torch.py", RANDOM_PROGRAM, tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout != on_arraygrad.stdout


def _outcome(recipe: Recipe, torch_out: str, ag_out: str) -> compare.Outcome:
    o = compare.Outcome(recipe.name, "", compare.Run("torch", 0, torch_out, "", 1.0),
                        compare.Run("arraygrad", 0, ag_out, "", 1.0))
    compare.judge(recipe, o)
    return o


def test_exact_comparison_ignores_timings_and_finds_the_first_difference():
    recipe = Recipe("r", "x+y", "p.py", "", ignore=r"[\d.]+ms")
    same = _outcome(recipe, "step 1 loss 0.500000 12.5ms\n", "step 1 loss 0.5000001 99.0ms\n")
    assert same.agree and same.compared == 2
    differ = _outcome(recipe, "loss 0.5\nloss 0.25\n", "loss 0.5\nloss 0.27\n")
    assert not differ.agree and "0.25" in differ.detail


def test_drift_after_compares_exactly_before_then_the_final_metric():
    recipe = Recipe("r", "x+y", "p.py", "", drift_after=r"^epoch 3", final=r"acc ([\d.]+)",
                    tolerance=0.02, learned=lambda v: v > 0.5)
    torch_out = "epoch 1 0.9\nepoch 2 0.7\nepoch 3 0.61\nacc 0.80\n"
    assert _outcome(recipe, torch_out, "epoch 1 0.9\nepoch 2 0.7\nepoch 3 0.64\nacc 0.81\n").agree
    assert not _outcome(recipe, torch_out, "epoch 1 0.9\nepoch 2 0.72\nepoch 3 0.6\nacc 0.8\n").agree
    assert not _outcome(recipe, torch_out, "epoch 1 0.9\nepoch 2 0.7\nepoch 3 0.6\nacc 0.7\n").agree


def test_a_failed_run_is_reported_with_its_error():
    recipe = Recipe("r", "x+y", "p.py", "")
    o = compare.Outcome("r", "", compare.Run("torch", 0, "1.0\n", "", 1.0),
                        compare.Run("arraygrad", 1, "", "Traceback\nKeyError: 'x'\n", 1.0))
    compare.judge(recipe, o)
    assert not o.agree and o.detail == "fails on arraygrad: KeyError: 'x'"


def test_recipes_are_well_formed():
    assert len(RECIPES) >= 18
    for name, r in RECIPES.items():
        assert name == r.name and r.compare in ("exact", "final") and r.what
        assert all(e.why for e in r.edits), name
        if r.compare == "final" or r.drift_after or r.exact_first:
            assert r.final and r.tolerance > 0 and r.why, name
        for standin in r.standins:
            assert (TOOLS / "standins" / standin).is_dir(), name


CORPUS = Path(os.environ.get("ARRAYGRAD_CORPUS", "/work/corpus"))


@pytest.mark.skipif(not (CORPUS.is_dir() and compare.MIRRORS.is_dir()),
                    reason="the corpus and its repository mirrors are not on this machine")
@pytest.mark.parametrize("name", sorted(RECIPES))
def test_each_recipes_files_exist_and_its_edits_apply_once(name):
    recipe = RECIPES[name]
    for rel in [recipe.program, *recipe.files]:
        assert compare._source(recipe.repo, rel) is not None  # raises when absent (may be empty)
    for edit in recipe.edits:
        text = compare._source(recipe.repo, edit.path).decode()
        assert text.count(edit.old) == 1, (edit.path, edit.old)


def test_number_extraction_reads_ints_floats_and_exponents():
    assert compare.NUMBER.findall("a 3 b -0.5 c 1e-05 d x2 4.") == ["3", "-0.5", "1e-05", "4."]
    assert re.fullmatch(compare.NUMBER, "2.5e+3")


def test_one_unit_in_the_last_printed_place_is_a_rounding_boundary_not_a_difference():
    recipe = Recipe("r", "x+y", "p.py", "")
    assert _outcome(recipe, "loss 1.7351\n", "loss 1.7350\n").agree
    assert not _outcome(recipe, "loss 1.7352\n", "loss 1.7350\n").agree
