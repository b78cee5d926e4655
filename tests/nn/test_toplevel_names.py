"""The top-level nn ops (``arraygrad.conv2d``...) come from ``arraygrad.nn._toplevel`` by the
names list ``arraygrad._nn_toplevel_names``; an unknown attribute does not import ``nn``."""

from __future__ import annotations

import subprocess
import sys


def test_names_list_matches_the_module():
    from arraygrad._nn_toplevel_names import NAMES
    from arraygrad.nn import _toplevel

    assert NAMES == set(_toplevel.__all__)


def test_unknown_attribute_does_not_import_nn():
    code = ("import sys, arraygrad; hasattr(arraygrad, 'no_such_name'); "
            "assert 'arraygrad.nn' not in sys.modules; arraygrad.conv2d; "
            "assert 'arraygrad.nn' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
