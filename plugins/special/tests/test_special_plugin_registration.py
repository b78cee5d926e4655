"""arraygrad-special as a plugin: discovery, namespace and methods, kernels, clashes, absence."""

import importlib
import logging
import math
import os
import subprocess
import sys
import textwrap

import pytest

import arraygrad as ag
from arraygrad.plugins import registry
from arraygrad.plugins.registry import OpRegistrar, OpRegistrationError
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
        from arraygrad.plugins import registry
        assert "erfc" in registry.ops()
        x = ag.tensor([0.5])
        print("scipy.special" in sys.modules, "cupy" in sys.modules, "cupyx" in sys.modules)
        ag.special.erf(x)  # the core's erf runs the plugin's SciPy kernel
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
    monkeypatch.setitem(registry._state.kernels, ("erfc", "numpy"),
                        (lambda *a: NotImplemented, "special"))
    x = ag.tensor([0.3, 1.2], dtype=ag.float64)
    assert ops.erfc(x).tolist() == portable.erfc(xp, x.numpy()).tolist()


def _spy_erf_kernel(monkeypatch, result):
    """Put a kernel returning ``result(x)`` where the plugin's NumPy erf kernel is; returns
    the list of arrays it was called with."""
    calls = []

    def kernel(x):
        calls.append(x)
        return result(x)

    monkeypatch.setitem(registry._state.kernels, ("erf", "numpy"), (kernel, "special"))
    return calls


def test_one_erf_the_cores_with_the_plugins_kernel(monkeypatch):
    """erf is the core's op (one implementation, one ErfBackward0); the plugin's kernel
    only speeds it up, for ``arraygrad.special.erf``, ``x.erf()`` and ``gelu`` alike."""
    import numpy as np

    from arraygrad.nn import functional as F

    core_erf = registry.get_op("Tensor.erf").fn
    assert ag.special.erf is ops.erf is core_erf and core_erf.__module__ == "arraygrad.nn._ops"
    assert "erf" not in registry.ops()  # no second erf op
    assert not [n for m in (ops, portable, kernels) for n in vars(m)
                if n.startswith("Erf") and n.endswith("Backward0") and n != "ErfcBackward0"
                and "inv" not in n]
    assert not hasattr(portable, "erf")
    core_node = importlib.import_module(core_erf.__module__).ERF.node
    calls = _spy_erf_kernel(monkeypatch, lambda x: np.full_like(x, 0.25))
    x = ag.tensor([0.3, 1.2], dtype=ag.float64, requires_grad=True)
    for y in (ag.special.erf(x), x.erf()):
        assert y.tolist() == [0.25, 0.25]
        assert type(y.grad_fn) is core_node and core_node.__name__ == "ErfBackward0"
    assert F.gelu(x).tolist() == [v * 0.5 * 1.25 for v in (0.3, 1.2)]
    assert len(calls) == 3


def test_core_erf_falls_back_when_the_kernel_declines(monkeypatch):
    calls = _spy_erf_kernel(monkeypatch, lambda x: NotImplemented)
    x = ag.tensor([0.0, 0.5, -3.0], dtype=ag.float64)
    out = ag.special.erf(x).tolist()
    assert len(calls) == 1
    assert out[0] == 0.0
    assert out[1:] == pytest.approx([math.erf(0.5), math.erf(-3.0)], rel=2e-16, abs=0)


def test_plugin_uses_only_the_public_op_api():
    """The ops are written with ``arraygrad.extend`` (plus the core's erf and the public
    ``arraygrad`` API): no registry internals, no private tensor fields."""
    import ast
    import inspect

    imports, private = set(), set()
    for module in (ops, portable, kernels):
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module.startswith("arraygrad."):
                imports.add((node.module, tuple(a.name for a in node.names)))
            if isinstance(node, ast.Attribute) and node.attr in ("_data", "_backend"):
                private.add(node.attr)
    assert imports == {("arraygrad.extend", ("backend_of", "defop", "dispatch_kernel", "native")),
                       ("arraygrad.special", ("erf",))}
    assert not private


def test_clash_without_override_raises():
    fn = registry.get_op("erfc").fn
    with pytest.raises(OpRegistrationError, match="clashes"):
        OpRegistrar("another-plugin").op("erfc", fn, namespace="special")
    assert registry.get_op("erfc").plugin == "special"


def test_clash_with_override_is_logged(caplog):
    original = registry.get_op("erfc")

    def my_erfc(input):
        """A replacement erfc."""
        return original.fn(input)

    try:
        with caplog.at_level(logging.WARNING, logger="arraygrad.ops"):
            OpRegistrar("another-plugin").op("erfc", my_erfc, namespace="special",
                                            method="erfc", override=True)
        assert any(r.name == "arraygrad.ops" and "overrides" in r.getMessage()
                   and "another-plugin" in r.getMessage() for r in caplog.records)
        assert ag.special.erfc is my_erfc
    finally:
        # put the plugin's own registration back (public API only)
        OpRegistrar(original.plugin).op(
            original.name, original.fn, namespace=original.namespace, method=original.method,
            cases=original.cases, override=True, doc=original.doc)
    assert ag.special.erfc is ops.erfc


def test_without_the_plugin_special_names_the_distribution():
    proc = _run("""
        import arraygrad as ag
        try:
            ag.special.erfc
        except AttributeError as exc:
            print(exc)
        else:
            raise SystemExit("ag.special.erfc exists without plugins")
        # with autoload off there is no backend either: register NumPy's by hand
        import arraygrad_numpy.plugin
        from arraygrad.plugins import register_plugin
        register_plugin(arraygrad_numpy.plugin, name="numpy")
        try:
            ag.tensor([1.0]).erfc()
        except AttributeError:
            print("no-method")
        # erf is the core's: there without the plugin (on its own portable code)
        print("erf", round(ag.special.erf(ag.tensor([0.5], dtype=ag.float64)).item(), 12))
    """, ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD="1")
    assert proc.returncode == 0, proc.stderr
    assert "arraygrad-special" in proc.stdout
    assert "no-method" in proc.stdout
    assert f"erf {round(math.erf(0.5), 12)}" in proc.stdout
