"""arraygrad-special as a plugin: discovery, namespace and methods, kernels, clashes, absence."""

import logging
import os
import subprocess
import sys
import textwrap

import pytest

import arraygrad as ag
from arraygrad.ops import registry
from arraygrad.ops.registry import OpRegistrar, OpRegistrationError
from arraygrad_special import kernels, ops, portable
from arraygrad_special.plugin import OPS


def _run(code: str, **env):
    """Run ``code`` in a fresh interpreter; returns the completed process."""
    full_env = {**os.environ, **env}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=full_env, timeout=120)


def test_namespace_and_methods_once_installed():
    x = ag.tensor([0.25, 0.5], dtype=ag.float64)
    assert ag.special.erf is ops.erf
    assert ag.special.erf(x).tolist() == x.erf().tolist()
    for name in ("erf", "erfc", "erfinv", "lgamma", "gammaln", "digamma", "psi", "polygamma",
                 "i0", "i1", "xlogy", "logit", "expit"):
        assert callable(getattr(ag.special, name)), name
        assert name in dir(ag.special)
    for method in ("erf", "erfc", "erfinv", "lgamma", "digamma", "i0", "logit"):
        assert getattr(x, method)().tolist() == getattr(ops, method)(x).tolist()
    assert x.polygamma(2).tolist() == ag.special.polygamma(2, x).tolist()
    assert x.xlogy(3.0).tolist() == ag.special.xlogy(x, 3.0).tolist()
    assert x.logit(eps=0.3).tolist() == ag.special.logit(x, 0.3).tolist()


def test_every_op_is_registered_by_the_plugin():
    registered = registry.ops()
    for name, attr, method in OPS:
        op = registered[name]
        assert op.plugin == "special" and op.fn is getattr(ops, attr) and op.method == method
        assert op.doc, f"{name} has no docstring"


def test_numpy_kernels_are_scipy_and_used():
    pytest.importorskip("scipy.special")
    backend = ag.tensor([1.0])._backend
    for op_name in kernels.SCIPY_NAMES:
        assert registry.get_kernel(op_name, backend) is not None, op_name


def test_plugin_load_imports_neither_scipy_nor_cupy():
    proc = _run("""
        import sys
        import arraygrad as ag
        from arraygrad.ops import registry
        assert "erf" in registry.ops()
        x = ag.tensor([0.5])
        print("scipy.special" in sys.modules, "cupy" in sys.modules, "cupyx" in sys.modules)
        ag.special.erf(x)
        print("scipy.special" in sys.modules)
    """)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split()
    assert lines[:3] == ["False", "False", "False"]
    # the first use of a SciPy kernel imports SciPy (only when SciPy is installed)
    try:
        import scipy  # noqa: F401
    except ImportError:
        return
    assert lines[3] == "True"


def test_lazy_kernel_without_its_library_defers_to_portable():
    k = kernels.lazy_kernel("arraygrad_special_no_such_module", "erf", lambda out, like: out)
    assert k(1.0) is NotImplemented
    registrar = OpRegistrar("test-missing-lib")
    # a backend name nobody uses; override=True because the registry has no unregister
    # and this test may run twice in one process (here and via tests/special)
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


def test_forward_falls_back_when_kernel_declines(monkeypatch):
    xp = pytest.importorskip("array_api_compat.numpy")
    monkeypatch.setattr(ops, "get_kernel", lambda op, backend: lambda *a: NotImplemented)
    x = ag.tensor([0.3, 1.2], dtype=ag.float64)
    assert ops.erf(x).tolist() == portable.erf(xp, x.numpy()).tolist()


def test_clash_without_override_raises():
    fn = registry.get_op("erf").fn
    with pytest.raises(OpRegistrationError, match="clashes"):
        OpRegistrar("another-plugin").op("erf", fn, namespace="special")
    assert registry.get_op("erf").plugin == "special"


def test_clash_with_override_is_logged(caplog):
    original = registry.get_op("erf")

    def my_erf(input):
        """A replacement erf."""
        return original.fn(input)

    try:
        with caplog.at_level(logging.WARNING, logger="arraygrad.ops"):
            OpRegistrar("another-plugin").op("erf", my_erf, namespace="special", method="erf",
                                            override=True)
        assert any(r.name == "arraygrad.ops" and "overrides" in r.getMessage()
                   and "another-plugin" in r.getMessage() for r in caplog.records)
        assert ag.special.erf is my_erf
    finally:
        # put the plugin's own registration back (public API only)
        OpRegistrar(original.plugin).op(
            original.name, original.fn, namespace=original.namespace, method=original.method,
            cases=original.cases, override=True, doc=original.doc)
    assert ag.special.erf is ops.erf


def test_without_the_plugin_special_names_the_distribution():
    proc = _run("""
        import arraygrad as ag
        try:
            ag.special.erf
        except AttributeError as exc:
            print(exc)
        else:
            raise SystemExit("ag.special.erf exists without plugins")
        # with autoload off there is no backend either: register NumPy's by hand
        import arraygrad_numpy.plugin
        from arraygrad.plugins import register_plugin
        register_plugin(arraygrad_numpy.plugin, name="numpy")
        try:
            ag.tensor([1.0]).erf()
        except AttributeError:
            print("no-method")
    """, ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD="1")
    assert proc.returncode == 0, proc.stderr
    assert "arraygrad-special" in proc.stdout
    assert "no-method" in proc.stdout
