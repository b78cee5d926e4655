"""The special functions are the core's: every ``torch.special`` name, the top-level functions
and the ``Tensor`` methods exist on the class itself from import (the census reads
``Tensor.erf`` on the class: a method bound only when a plugin's ops load, on the first unknown
instance attribute, was missing there), with or without the arraygrad-special plugin."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import arraygrad as ag

METHODS = ["digamma", "digamma_", "erf", "erf_", "erfc", "erfc_", "erfinv", "erfinv_", "i0",
           "i0_", "igamma", "igamma_", "igammac", "igammac_", "lgamma", "lgamma_", "logit",
           "logit_", "mvlgamma", "mvlgamma_", "polygamma", "polygamma_", "xlogy", "xlogy_"]
FUNCTIONS = ["digamma", "lgamma", "polygamma", "mvlgamma", "i0", "i0_", "igamma", "igammac",
             "erf", "erf_", "erfc", "erfc_", "erfinv", "logit", "logit_", "xlogy", "xlogy_"]


def _fresh(code: str, **env: str) -> object:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=120, env={**os.environ, **env})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("autoload", ["1", "0"])
def test_methods_are_on_the_class_from_import(autoload):
    """In a fresh interpreter, before any tensor exists, with plugins on and off."""
    missing = _fresh(f"""
        import json
        import arraygrad
        from arraygrad.tensor import Tensor
        methods = {METHODS!r}
        functions = {FUNCTIONS!r}
        print(json.dumps([m for m in methods if m not in vars(Tensor)]
                         + [f for f in functions if not hasattr(arraygrad, f)]))
    """, ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD=autoload)
    assert missing == []


def test_every_torch_special_name_is_there():
    torch = pytest.importorskip("torch", reason="the names are read from PyTorch")
    listed = {"common_args", "multi_dim_common"}  # docstring templates (absences.toml)
    names = [n for n in dir(torch.special) if not n.startswith("_") and n not in listed
             and callable(getattr(torch.special, n))]
    assert [n for n in names if not hasattr(ag.special, n)] == []
    assert set(ag.special.__all__) <= set(dir(ag.special))
    assert ag.special.Tensor is ag.Tensor
    # the top-level ones are the same objects as arraygrad.<name>
    assert ag.special.gammaln is ag.lgamma and ag.special.psi is ag.digamma
    assert ag.special.expit is ag.sigmoid and ag.special.multigammaln is ag.mvlgamma


def test_an_unknown_special_name_says_so():
    with pytest.raises(AttributeError, match="has no attribute 'no_such'"):
        ag.special.no_such
    with pytest.raises(AttributeError, match="docstring fragments"):
        ag.special.common_args
