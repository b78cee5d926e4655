"""``ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD`` switches entry-point discovery off.

The real check runs in a fresh interpreter, since discovery happens once per
process; an in-process variant uses monkeypatch so no variable leaks.
"""

from __future__ import annotations

import pytest

from arraygrad.backends import available
from arraygrad.plugins import get_plugin_manager

DISABLE_ENV = "ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD"

_CHILD = r"""
import json, sys
import arraygrad as ag
from arraygrad.plugins import get_plugin_manager

out = {"plugins": sorted(name for name, _ in get_plugin_manager().list_name_plugin()),
       "available": [row.name for row in ag.backends.available()]}
try:
    ag.tensor([1.0, 2.0])
except RuntimeError as exc:
    out["error"] = str(exc)
try:
    ag.tensor([1.0], device="dummy")
except RuntimeError as exc:
    out["dummy_error"] = str(exc)
out["loaded_plugin_modules"] = sorted(
    m for m in sys.modules if m.split(".")[0] in ("arraygrad_numpy", "arraygrad_cupy",
                                                   "arraygrad_dummy", "cupy"))

from arraygrad_numpy import NumpyBackend
ag.backends.register_backend(NumpyBackend())
x = ag.tensor([1.0, 2.0], requires_grad=True)
(x * x).sum().backward()
out["grad"] = x.grad.tolist()
out["available_after"] = [(row.name, row.available, row.plugin) for row in ag.backends.available()]
print(json.dumps(out))
"""


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_disable_switch_in_fresh_process(run_python, value):
    out = run_python(_CHILD, env={DISABLE_ENV: value})
    assert out["plugins"] == []
    assert out["available"] == []
    assert "no arraygrad backend serves device 'cpu'" in out["error"]
    assert DISABLE_ENV in out["error"]  # the message says why and what to do
    assert "register_backend" in out["error"]
    assert "dummy" in out["dummy_error"]
    # No plugin module was even imported (the switch is checked before loading).
    assert out["loaded_plugin_modules"] == []
    assert out["grad"] == [2.0, 4.0]
    assert out["available_after"] == [["numpy", True, "<register_backend>"]]


@pytest.mark.parametrize("value", ["", "0", "false", "no"])
def test_falsy_values_keep_autoload_on(run_python, value):
    code = ("import json, warnings, arraygrad as ag\n"
            "warnings.simplefilter('ignore')\n"
            "print(json.dumps([r.name for r in ag.backends.available()]))")
    names = run_python(code, env={DISABLE_ENV: value})
    assert {"numpy", "cupy", "dummy"} <= set(names)


def test_disable_switch_in_process(fresh_plugins, monkeypatch):
    monkeypatch.setenv(DISABLE_ENV, "1")
    assert fresh_plugins.autoload_disabled()
    assert get_plugin_manager().list_name_plugin() == []
    assert available() == []
    with pytest.raises(RuntimeError, match=DISABLE_ENV):
        __import__("arraygrad").zeros(2)

    # Explicit plugin registration still works with discovery off.
    import arraygrad_numpy.plugin
    from arraygrad.plugins import register_plugin

    register_plugin(arraygrad_numpy.plugin, name="numpy")
    assert [(r.name, r.plugin) for r in available()] == [("numpy", "numpy")]
    assert __import__("arraygrad").ones(2).sum().item() == 2.0
