"""tools/corpus: what the corpus measure counts as a use, how it resolves names, and how the
corpus builder turns notebooks into Python.  Synthetic snippets only: no network, no corpus,
and torch only where a test says so (it is skipped without torch)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools" / "corpus"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"corpus_{name}", TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


measure = _load("measure")
build = _load("build_corpus")

# A made-up Tensor attribute list and ambiguous list: the rule, not torch's real lists.
TENSOR = {"view", "sum", "normal_", "masked_fill", "numpy", "log", "name", "grad", "exp", "new"}
AMBIGUOUS = {"view", "sum"}


def uses(src: str):
    return measure.collect(src, TENSOR, AMBIGUOUS)


# --------------------------------------------------------------------------- aliases


def test_plain_import_and_attribute_chains():
    u = uses("import torch\nx = torch.zeros(3)\ny = torch.nn.functional.gelu(x)\nz = torch.zeros(2)\n")
    assert u.names == {"torch.zeros": 2, "torch.nn.functional.gelu": 1}


def test_import_as_aliases():
    src = (
        "import torch as T\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "import torch.optim.lr_scheduler as sched\n"
        "a = T.ones(1)\n"
        "layer = nn.Linear(2, 3)\n"
        "b = F.relu(a)\n"
        "s = sched.StepLR\n"
    )
    u = uses(src)
    assert set(u.names) == {
        "torch.nn", "torch.nn.functional", "torch.optim.lr_scheduler",  # the imports themselves
        "torch.ones", "torch.nn.Linear", "torch.nn.functional.relu", "torch.optim.lr_scheduler.StepLR",
    }


def test_import_of_a_submodule_binds_torch():
    u = uses("import torch.nn.functional\ny = torch.nn.functional.softmax(x, 1)\n")
    assert set(u.names) == {"torch.nn.functional", "torch.nn.functional.softmax"}


def test_from_imports_are_uses_and_aliases():
    src = (
        "from torch import nn, optim\n"
        "from torch.nn import functional as F\n"
        "from torch.utils.data import DataLoader, Dataset\n"
        "net = nn.Sequential(nn.Linear(1, 1))\n"
        "opt = optim.SGD(net.parameters(), lr=0.1)\n"
        "loader = DataLoader(Dataset())\n"
        "F.mse_loss\n"
    )
    u = uses(src)
    assert set(u.names) == {
        "torch.nn", "torch.optim", "torch.nn.functional", "torch.utils.data.DataLoader",
        "torch.utils.data.Dataset", "torch.nn.Sequential", "torch.nn.Linear", "torch.optim.SGD",
        "torch.nn.functional.mse_loss",
    }
    assert u.names["torch.utils.data.DataLoader"] == 2  # the import and the call
    assert u.names["torch.nn.Linear"] == 1


def test_star_import_is_reported():
    u = uses("from torch.nn import *\nfrom torch import *\n")
    assert u.star_imports == ["torch.nn", "torch"]
    assert set(u.names) == {"torch.nn"}


def test_other_torch_family_packages_are_not_torch():
    u = uses("import torchvision\nimport torchaudio as ta\nfrom torchtext import data\n"
             "m = torchvision.models.resnet18()\nw = ta.load('x')\n")
    assert not u.names
    assert {"torchvision", "torchaudio", "torchtext"} <= u.imports


def test_assigning_an_attribute_uses_its_owner():
    u = uses("import torch\ntorch.backends.cudnn.benchmark = True\n")
    assert set(u.names) == {"torch.backends.cudnn"}


def test_relative_imports_are_ignored():
    u = uses("from . import nn\nfrom .torch import x\nnn.Linear\n")
    assert not u.names


# --------------------------------------------------------------------------- scopes


def test_a_parameter_shadows_an_imported_alias():
    src = (
        "import torch._inductor.config as config\n"
        "class GPT:\n"
        "    def __init__(self, config):\n"
        "        self.n = config.n_embd\n"
        "config.coordinate_descent_tuning = True\n"
    )
    u = uses(src)
    assert set(u.names) == {"torch._inductor.config"}


def test_a_later_assignment_shadows_at_module_level():
    src = (
        "from torch.utils import data\n"
        "loader = data.DataLoader([])\n"
        "data = [1, 2]\n"
        "data.append(3)\n"
        "for data in loader:\n"
        "    data.numpy()\n"
    )
    u = uses(src)
    assert set(u.names) == {"torch.utils.data", "torch.utils.data.DataLoader"}
    assert set(u.methods) == {"numpy"}


def test_a_function_reads_the_module_level_import():
    src = (
        "import torch.nn.functional as F\n"
        "def f(x):\n"
        "    return F.relu(x)\n"
        "F = None\n"
    )
    assert "torch.nn.functional.relu" in uses(src).names


def test_comprehension_variables_are_local():
    src = "import torch.nn as nn\nys = [nn.exp() for nn in range(3)]\nz = nn.Linear\n"
    u = uses(src)
    assert set(u.names) == {"torch.nn", "torch.nn.Linear"}
    assert set(u.methods) == {"exp"}


def test_imports_inside_functions_count():
    src = "def main():\n    import torch\n    from torch import optim\n    return torch.tensor([1]), optim.Adam\n"
    assert set(uses(src).names) == {"torch.optim", "torch.tensor", "torch.optim.Adam"}


# --------------------------------------------------------------------------- Tensor methods


def test_tensor_methods_counted_on_expressions():
    src = (
        "import torch\n"
        "w = torch.empty(3, 3)\n"
        "w.normal_(0, 1)\n"
        "y = w.masked_fill(w > 0, 0).numpy()\n"
        "z = model(x).grad\n"
        "w.normal_()\n"
    )
    u = uses(src)
    assert u.methods == {"normal_": 2, "masked_fill": 1, "numpy": 1, "grad": 1}


def test_ambiguous_names_are_left_out():
    u = uses("import torch\nx = torch.ones(2)\nx.view(2, 1).sum()\n'a'.sum\n")
    assert not u.methods  # view and sum are ambiguous here


def test_torch_chains_are_not_tensor_methods():
    u = uses("import torch\nf = torch.Tensor.normal_\ng = torch.exp\nh = torch.nn.functional.log\n")
    assert not u.methods
    assert {"torch.Tensor.normal_", "torch.exp", "torch.nn.functional.log"} <= set(u.names)


def test_module_functions_and_own_attributes_are_not_tensor_methods():
    src = (
        "import numpy as np\n"
        "import math\n"
        "a = np.log(2) + math.exp(1) + np.emath.log(3)\n"
        "class M:\n"
        "    def f(self):\n"
        "        return self.name, self.exp\n"
        "def backward(ctx, g):\n"
        "    return ctx.name\n"
        "b = other.exp()\n"
    )
    u = uses(src)
    assert u.methods == {"exp": 1}


def test_committed_reference_lists_the_ambiguous_names():
    # the facts the measure uses without torch: torch 2.13's Tensor attributes, the ambiguous ones
    facts = measure.load_reference()
    assert facts["torch_version"].startswith(measure.TORCH_VERSION)
    assert {"sum", "view", "reshape", "to", "cuda", "item", "shape", "name"} <= set(facts["ambiguous"])
    assert {"normal_", "masked_fill", "unsqueeze"} <= set(facts["tensor_attributes"]) - set(facts["ambiguous"])
    assert "torch._six.inf" in facts["torch_lacks"]


# --------------------------------------------------------------------------- resolving


def test_resolver_against_arraygrad_reports_the_missing_prefix():
    r = measure.Resolver("arraygrad")
    assert r.missing("torch.nn.functional.relu") is None
    assert r.missing("torch.nn.Linear") is None
    assert r.missing("torch.utils.data.DataLoader") is None
    assert r.missing("torch.nn.functional.no_such_function_xyz") == "torch.nn.functional.no_such_function_xyz"
    assert r.missing("torch.no_such_module_xyz.thing") == "torch.no_such_module_xyz"
    assert r.has_method("backward") and not r.has_method("no_such_method_xyz")


def test_resolver_imports_submodules_and_sees_through_shadowing(tmp_path, monkeypatch):
    pkg = tmp_path / "fakeroot_corpus"
    (pkg / "utils").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .utils.norm import norm\n")
    (pkg / "utils" / "__init__.py").write_text("")
    (pkg / "utils" / "norm.py").write_text("def norm(x):\n    return x\nEPS = 1e-5\n")
    (pkg / "utils" / "needs_dep.py").write_text("import some_missing_dependency_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    r = measure.Resolver("fakeroot_corpus")
    assert r.missing("torch.utils.norm.EPS") is None  # a submodule, imported on demand
    assert r.missing("torch.norm") is None
    assert r.missing("torch.utils.norm.norm") is None
    assert r.missing("torch.utils.needs_dep.Anything") is None  # there, needs another package
    assert r.missing("torch.utils.absent.x") == "torch.utils.absent"


def test_evaluate_counts_files_uses_and_single_blockers(tmp_path):
    corpus = tmp_path / "corpus"
    (corpus / "a+one").mkdir(parents=True)
    (corpus / "b+two").mkdir(parents=True)
    (corpus / "a+one" / "ok.py").write_text("import torch\nx = torch.nn.functional.relu(torch.ones(1))\n")
    (corpus / "a+one" / "one_missing.py").write_text("import torch\ntorch.nn.no_such_layer_xyz(3)\n")
    (corpus / "b+two" / "two_missing.py").write_text(
        "import torch\ntorch.nn.no_such_layer_xyz(3)\nx = torch.ones(1)\nx.no_such_method_xyz()\n")
    (corpus / "b+two" / "broken.py").write_text("print 'python 2'\n")
    (corpus / "b+two" / "old.py").write_text("import torch\ny = torch.renamed_in_other_version_xyz\n")
    m = measure.scan(corpus, {"no_such_method_xyz", "numpy"}, set())
    assert (m.files, len(m.repos), m.parsed, m.unparsed) == (5, 2, 4, ["b+two/broken.py"])

    res = measure.evaluate(m, measure.Resolver("arraygrad"),
                           lambda q: q == "torch.renamed_in_other_version_xyz")
    assert res["files_fully_resolved"] == 2  # ok.py, and old.py once the name torch lacks is left out
    assert res["files_fully_resolved_counting_names_torch_lacks"] == 1
    names = {u["name"]: u["files"] for u in res["unresolved"]}
    assert names == {"torch.nn.no_such_layer_xyz": 2, "Tensor.no_such_method_xyz": 1}
    assert res["single_blockers"] == [
        {"name": "torch.nn.no_such_layer_xyz", "files": 1, "paths": ["a+one/one_missing.py"]}]
    assert res["names_torch_lacks"][0]["name"] == "torch.renamed_in_other_version_xyz"
    assert [(g["name"], g["files_freed"], g["files_fully_resolved"]) for g in res["greedy_unlock"]] == [
        ("torch.nn.no_such_layer_xyz", 1, 3), ("Tensor.no_such_method_xyz", 1, 4)]
    # uses: ok.py 2 (relu, ones), one_missing 1, two_missing 3 (layer, ones, method), old 0
    assert (res["uses"], res["uses_resolved"]) == (6, 3)


def test_main_runs_from_the_reference_without_torch(tmp_path, monkeypatch):
    corpus = tmp_path / "corpus" / "x+y"
    corpus.mkdir(parents=True)
    (corpus / "prog.py").write_text("import torch\nt = torch.ones(2)\nt.numpy()\nt.gone_xyz()\n")
    ref = tmp_path / "ref.json"
    ref.write_text(json.dumps({"torch_version": "2.13.0", "tensor_attributes": ["numpy", "gone_xyz", "sum"],
                               "ambiguous": ["sum"], "torch_lacks": []}))

    def no_torch():
        raise ImportError("no torch here")

    monkeypatch.setattr(measure, "torch_facts", no_torch)
    out = tmp_path / "res.json"
    rc = measure.main(["--corpus", str(tmp_path / "corpus"), "--reference", str(ref),
                       "--json", str(out), "--report", str(tmp_path / "r.md")])
    assert rc == 0
    res = json.loads(out.read_text())
    assert res["torch_checked_live"] is False
    assert [u["name"] for u in res["unresolved"]] == ["Tensor.gone_xyz"]
    assert "Tensor.gone_xyz" in (tmp_path / "r.md").read_text()


def test_against_torch_resolves_real_names():
    pytest.importorskip("torch", reason="needs torch to check names against torch itself")
    r = measure.Resolver("torch")
    assert r.missing("torch.nn.functional.gelu") is None
    assert r.missing("torch.optim.lr_scheduler.StepLR") is None
    assert r.missing("torch.nn.utils.spectral_norm.spectral_norm") is None  # function and module
    assert r.missing("torch._six.inf") == "torch._six"  # gone from torch 2.x
    facts = measure.torch_facts()
    assert "normal_" in facts["tensor_attributes"] and "normal_" not in facts["ambiguous"]
    assert {"view", "to", "sum", "name"} <= set(facts["ambiguous"])


# --------------------------------------------------------------------------- notebooks


def test_notebook_code_cells_without_magics():
    nb = {
        "nbformat": 4,
        "cells": [
            {"cell_type": "markdown", "source": ["# Title\n", "import torch  # not code\n"]},
            {"cell_type": "code", "source": ["%matplotlib inline\n", "import torch\n", "!pip install x\n",
                                             "  %time y = 1\n", "x = torch.ones(2)"]},
            {"cell_type": "code", "source": "%%bash\necho hi\n"},
            {"cell_type": "code", "source": "%%time\nz = x.sum()\n"},
            {"cell_type": "code", "source": []},
            {"cell_type": "code", "source": "if COLAB:\n    !pip install y\nw = 2"},
        ],
    }
    py = build.notebook_to_python(json.dumps(nb))
    assert py == "import torch\nx = torch.ones(2)\n\nz = x.sum()\n\nif COLAB:\n    pass\nw = 2\n"
    assert "torch.ones" in uses(py).names


def test_old_format_notebooks_are_read():
    nb = {"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": ["import torch\n", "a = 1\n"]}]}]}
    assert build.notebook_to_python(json.dumps(nb)) == "import torch\na = 1\n"


def test_output_names_and_manifest_round_trip(tmp_path):
    assert build.output_name("ch1/intro.ipynb") == "ch1/intro_ipynb.py"
    assert build.output_name("train.py") == "train.py"
    path = tmp_path / "m.tsv"
    rows = [("o/r", "a" * 40, "x/y.py"), ("o/q", "b" * 40, "n.ipynb")]
    build.write_manifest(path, rows)
    assert build.read_manifest(path) == sorted(rows)


def test_extract_from_a_local_git_repository(tmp_path):
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    work = tmp_path / "mirrors" / "someone+proj" / "repo"
    work.mkdir(parents=True)
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    pad = "# " + "x" * 600 + "\n"  # the selection skips tiny files
    (work / "train.py").write_text("import torch\nprint(torch.ones(1))\n" + pad)
    (work / "nb.ipynb").write_text(json.dumps({"cells": [{"cell_type": "code", "source": "!ls\nimport torch\n"},
                                                         {"cell_type": "markdown", "source": pad}]}))
    (work / "util.py").write_text("x = 1\n")
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "c"]):
        subprocess.run(["git", *cmd], cwd=work, check=True, env=env, capture_output=True)
    commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=work, check=True, capture_output=True,
                            text=True).stdout.strip()
    # the selection finds the two files that import torch
    rows = build.select(tmp_path / "mirrors", per_repo=5)
    assert sorted(p for _r, _c, p in rows) == ["nb.ipynb", "train.py"]
    manifest = tmp_path / "manifest.tsv"
    build.write_manifest(manifest, [("someone/proj", commit, "train.py"), ("someone/proj", commit, "nb.ipynb")])
    out = tmp_path / "corpus"
    assert build.extract(manifest, tmp_path / "mirrors", out) == 0
    assert (out / "someone+proj" / "train.py").read_text().startswith("import torch\nprint")
    assert (out / "someone+proj" / "nb_ipynb.py").read_text() == "import torch\n"
