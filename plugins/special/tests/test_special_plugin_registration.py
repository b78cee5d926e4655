"""arraygrad-special as a plugin: discovery, its kernels (and only kernels), lazy imports,
fallback to the core's portable code."""

import os
import subprocess
import sys
import textwrap

import pytest

import arraygrad as ag
from arraygrad.plugins import registry
from arraygrad.plugins.registry import OpRegistrar
from arraygrad_special import kernels


def _run(code: str, **env):
    """Run ``code`` in a fresh interpreter; returns the completed process."""
    full_env = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=full_env, timeout=120)


def test_the_plugin_registers_kernels_and_no_ops():
    registry.load_ops()
    assert not [op for op in registry.ops().values() if op.plugin == "special"]
    pytest.importorskip("scipy.special")
    backend = ag.tensor([1.0])._backend
    for op_name in kernels.SCIPY_NAMES:
        assert registry.get_kernel(op_name, backend) is not None, op_name


def test_every_kernel_names_a_core_op():
    import arraygrad.special as special

    for op_name in kernels.SCIPY_NAMES:
        assert callable(getattr(special, op_name, None) or getattr(ag, op_name)), op_name


def test_plugin_load_imports_neither_scipy_nor_cupy():
    proc = _run("""
        import sys
        import arraygrad as ag
        from arraygrad.plugins import registry
        registry.load_ops()
        print("scipy.special" in sys.modules, "cupy" in sys.modules, "cupyx" in sys.modules)
        ag.special.erf(ag.tensor([0.5]))  # float32: the plugin's NumPy erf, no SciPy
        print("scipy.special" in sys.modules)
        ag.special.erf(ag.tensor([0.5], dtype=ag.float64))  # float64: the same, no SciPy
        print("scipy.special" in sys.modules)
        ag.special.erfc(ag.tensor([0.5], dtype=ag.float64))  # the plugin's SciPy kernel
        print("scipy.special" in sys.modules)
    """)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split()
    assert lines[:5] == ["False", "False", "False", "False", "False"]
    try:  # the first use of a SciPy kernel imports SciPy (only when SciPy is installed)
        import scipy  # noqa: F401
    except ImportError:
        return
    assert lines[5] == "True"


def test_lazy_kernel_without_its_library_defers_to_portable():
    k = kernels.lazy_kernel("arraygrad_special_no_such_module", "erf", lambda out, like: out)
    assert k(1.0) is NotImplemented
    registrar = OpRegistrar("test-missing-lib")
    # a backend name nobody uses; override=True because the registry has no unregister
    registrar.kernel("erf", "test-missing-lib-backend", k, override=True)
    try:
        class FakeBackend:
            name = "test-missing-lib-backend"

            def kernel(self, op_name):
                return None

        assert registry.get_kernel("erf", FakeBackend()) is k
    finally:
        registrar.kernel("erf", "test-missing-lib-backend",
                         lambda *a: NotImplemented, override=True)


def _spy_kernel(monkeypatch, op_name, result):
    """Put a kernel returning ``result(x)`` where the plugin's NumPy kernel for ``op_name`` is;
    returns the list of arrays it was called with."""
    calls = []

    def kernel(*arrays):
        calls.append(arrays)
        return result(*arrays)

    registry.load_ops()
    monkeypatch.setitem(registry._state.kernels, (op_name, "numpy"), (kernel, "special"))
    return calls


def test_one_erf_the_cores_with_the_plugins_kernel(monkeypatch):
    """erf is the core's op (one ErfBackward0); the plugin's kernel only speeds it up, for
    ``arraygrad.special.erf``, ``arraygrad.erf``, ``x.erf()`` and ``gelu`` alike."""
    import numpy as np

    from arraygrad.nn import functional as F

    assert ag.special.erf is ag.erf
    calls = _spy_kernel(monkeypatch, "erf", lambda x: np.full_like(x, 0.25))
    x = ag.tensor([0.3, 1.2], dtype=ag.float64, requires_grad=True)
    for y in (ag.special.erf(x), x.erf()):
        assert y.tolist() == [0.25, 0.25]
        assert type(y.grad_fn).__name__ == "ErfBackward0"
    assert F.gelu(x).tolist() == [v * 0.5 * 1.25 for v in (0.3, 1.2)]
    assert len(calls) == 3


@pytest.mark.parametrize("op_name,call", [
    ("erf", lambda x: ag.special.erf(x)), ("lgamma", lambda x: x.lgamma()),
    ("igamma", lambda x: ag.igamma(x, x)), ("bessel_j0", lambda x: ag.special.bessel_j0(x))])
def test_ops_fall_back_when_the_kernel_declines(monkeypatch, op_name, call):
    x = ag.tensor([0.5, 2.0], dtype=ag.float64)
    with pytest.MonkeyPatch.context() as mp:
        mp.delitem(registry._state.kernels, (op_name, "numpy"), raising=False)
        portable = call(x).tolist()
    calls = _spy_kernel(monkeypatch, op_name, lambda *a: NotImplemented)
    assert call(x).tolist() == portable
    assert len(calls) == 1


def test_without_the_plugin_every_special_function_is_there():
    """The functions and methods are the core's: the same values with plugins off."""
    proc = _run("""
        import json
        import arraygrad as ag
        import arraygrad_numpy.plugin
        from arraygrad.plugins import register_plugin
        register_plugin(arraygrad_numpy.plugin, name="numpy")
        x = ag.tensor([0.5, 1.5], dtype=ag.float64)
        print(json.dumps([ag.special.erfc(x).tolist(), x.lgamma().tolist(),
                          ag.special.i1e(x).tolist(), x.polygamma(2).tolist()]))
    """, ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD="1")
    assert proc.returncode == 0, proc.stderr
    import json

    x = ag.tensor([0.5, 1.5], dtype=ag.float64)
    want = [ag.special.erfc(x).tolist(), x.lgamma().tolist(), ag.special.i1e(x).tolist(),
            x.polygamma(2).tolist()]
    got = json.loads(proc.stdout.splitlines()[-1])
    for g, w in zip(got, want):
        assert g == pytest.approx(w, rel=1e-14)
