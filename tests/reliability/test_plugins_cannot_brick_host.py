"""Plugins that fail in every way are reported with their distribution and error, the rest of
arraygrad works, ARRAYGRAD_STRICT_PLUGINS=1 makes failures errors, autoload-off runs no plugin
code, and ``arraygrad plugins`` lists it all."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings

import pytest

import arraygrad as ag
from arraygrad.backends import BackendRegistrationError
from arraygrad.plugins import PluginLoadWarning, hookimpl, register_plugin


def _run(code: str, **env) -> subprocess.CompletedProcess:
    child = {k: v for k, v in os.environ.items() if not k.startswith("ARRAYGRAD_")}
    child.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=child,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def isolated_plugins():
    """Plugins registered by a test are forgotten afterwards (entry points reload)."""
    from arraygrad.backends import registry
    from arraygrad.plugins import registry as op_registry
    from arraygrad.plugins import manager

    pm = manager.get_plugin_manager()
    before = {name for name, _ in pm.list_name_plugin()}
    saved = (manager._pm, manager._loaded, dict(manager._errors), registry._backends,
             dict(registry._origin), dict(registry._device_cache))
    yield
    for name, _ in list(pm.list_name_plugin()):  # the test's plugins must not outlive it
        if name not in before:
            pm.unregister(name=name)
    manager._reset_for_tests()
    pm, loaded, errors, backends, origin, cache = saved
    manager._pm, manager._loaded = pm, loaded
    manager._errors.update(errors)
    registry._backends = backends
    registry._origin.update(origin)
    registry._device_cache.update(cache)
    op_registry._forget()


def test_broken_entry_points_are_reported_with_distribution_and_rest_works():
    proc = _run("""
        import json, warnings
        warnings.simplefilter("always")
        with warnings.catch_warnings(record=True) as caught:
            import arraygrad as ag
            x = ag.tensor([1., 2.], requires_grad=True)
            (x * x).sum().backward()
        print(json.dumps({"grad": x.grad.tolist(),
                          "warnings": [str(w.message) for w in caught]}))
        """, ARRAYGRAD_TEST_BROKEN_PLUGINS="1")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["grad"] == [2.0, 4.0]
    joined = "\n".join(out["warnings"])
    assert "dummy_broken_import" in joined and "dummy_broken_register" in joined
    assert "distribution 'arraygrad-dummy-plugin'" in joined
    assert "ImportError" in joined and "RuntimeError" in joined


def test_strict_plugins_turns_failures_into_errors():
    proc = _run("import arraygrad as ag; ag.zeros(1)", ARRAYGRAD_TEST_BROKEN_PLUGINS="1",
                ARRAYGRAD_STRICT_PLUGINS="1")
    assert proc.returncode != 0
    assert "PluginError" in proc.stderr and "arraygrad-dummy-plugin" in proc.stderr


def test_autoload_disabled_loads_no_third_party_code():
    proc = _run("""
        import json, sys
        import arraygrad as ag
        from arraygrad.backends import register_backend
        from arraygrad_numpy import NumpyBackend
        register_backend(NumpyBackend())
        y = (ag.ones(2, requires_grad=True) * 3).sum()
        loaded = sorted(m for m in sys.modules if m.startswith(("arraygrad_dummy",
                                                                "arraygrad_special", "cupy")))
        print(json.dumps({"value": y.item(), "third_party": loaded}))
        """, ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD="1", ARRAYGRAD_TEST_BROKEN_PLUGINS="1")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out == {"value": 6.0, "third_party": []}


def test_malformed_backend_is_rejected_and_reported(isolated_plugins):
    class NotABackend:
        name = "bogus"

    class Malformed:
        @hookimpl
        def arraygrad_register_backends(self, register):
            register(NotABackend())

    with pytest.warns(PluginLoadWarning, match="malformed.*not an arraygrad.backends.Backend"):
        register_plugin(Malformed(), name="malformed")
        ag.backends.available()
    assert (ag.ones(2) + 1).tolist() == [2., 2.]
    with pytest.raises(BackendRegistrationError):
        ag.backends.register_backend(NotABackend())


def test_kernel_that_raises_falls_back_to_portable_and_is_reported(isolated_plugins):
    from arraygrad.plugins.registry import dispatch_kernel, get_kernel

    class BadKernels:
        @hookimpl
        def arraygrad_register_ops(self, registry):
            registry.kernel("demo_op", "numpy", lambda a: 1 / 0)

    register_plugin(BadKernels(), name="bad_kernels")
    backend = ag.ones(1)._backend
    with pytest.warns(PluginLoadWarning, match=r"bad_kernels.*kernel 'demo_op'.*ZeroDivisionError"):
        assert dispatch_kernel("demo_op", backend, lambda a: a * 2, 21) == 42
    assert get_kernel("demo_op", backend) is None  # dropped
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # dropped: no second report
        assert dispatch_kernel("demo_op", backend, lambda a: a * 2, 1) == 2


# -- conv2d runs its kernels through the dispatcher --------------------------------------------

def _conv_inputs():
    ag.manual_seed(0)
    x = ag.randn(2, 3, 5, 5, dtype=ag.float64, requires_grad=True)
    w = ag.randn(4, 3, 3, 3, dtype=ag.float64, requires_grad=True)
    return x, w


def _portable_conv(x, w):
    from arraygrad.nn._functional import conv

    return conv._conv2d_portable(x, w, None, (1, 1), ((1, 1), (1, 1)), (1, 1), 1)


def _kernel_plugin(kernel):
    class ConvKernel:
        @hookimpl
        def arraygrad_register_ops(self, registry):
            registry.kernel("conv2d", "numpy", kernel)

    register_plugin(ConvKernel(), name="conv_kernel")


def test_a_conv2d_plugin_kernel_that_raises_falls_back_and_is_reported(isolated_plugins):
    calls = []

    def broken(*args):
        calls.append(args)
        raise ValueError("kernel bug")

    _kernel_plugin(broken)
    x, w = _conv_inputs()
    with pytest.warns(PluginLoadWarning, match=r"conv_kernel.*kernel 'conv2d'.*kernel bug"):
        out = ag.nn.functional.conv2d(x, w, padding=1)
    assert len(calls) == 1
    assert out.tolist() == _portable_conv(x, w).tolist()
    out.sum().backward()  # the portable result takes part in autograd
    assert x.grad is not None and w.grad is not None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ag.nn.functional.conv2d(x, w, padding=1)
    assert len(calls) == 1  # dropped


def test_a_backends_own_conv2d_kernel_that_raises_falls_back_and_names_its_plugin(
        isolated_plugins, monkeypatch):
    x, w = _conv_inputs()
    backend = x._backend
    calls = []

    def broken(*args):
        calls.append(args)
        raise RuntimeError("backend kernel bug")

    monkeypatch.setattr(backend, "kernel", lambda op: broken if op == "conv2d" else None)
    with pytest.warns(PluginLoadWarning,
                      match=r"'numpy' \(backend 'numpy''s own kernel 'conv2d'\).*kernel bug"):
        out = ag.nn.functional.conv2d(x, w, padding=1)
    assert out.tolist() == _portable_conv(x, w).tolist() and len(calls) == 1
    ag.nn.functional.conv2d(x, w, padding=1)
    assert len(calls) == 1  # dropped


def test_a_conv2d_kernel_may_decline_a_call_or_answer_it(isolated_plugins):
    answers = []

    def picky(x, weight, bias, stride, padding, dilation, groups):
        if groups != 1:
            answers.append("declined")
            return NotImplemented
        answers.append("answered")
        return _portable_conv(x, weight) * 0 + 7

    _kernel_plugin(picky)
    x, w = _conv_inputs()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginLoadWarning)
        assert ag.nn.functional.conv2d(x, w, padding=1).tolist() == (
            _portable_conv(x, w) * 0 + 7).tolist()
        w3 = ag.randn(3, 1, 3, 3, dtype=ag.float64)
        ag.nn.functional.conv2d(x, w3, padding=1, groups=3)  # declined: portable
        assert ag.nn.functional.conv2d(x, w, padding=1).tolist()[0][0][0][0] == 7.0
    assert answers == ["answered", "declined", "answered"]  # declining does not drop it


def test_a_raising_kernel_is_an_error_under_strict_plugins(isolated_plugins, monkeypatch):
    from arraygrad.plugins import PluginError

    monkeypatch.setenv("ARRAYGRAD_STRICT_PLUGINS", "1")
    _kernel_plugin(lambda *args: 1 / 0)
    x, w = _conv_inputs()
    with pytest.raises(PluginError, match="conv_kernel.*ZeroDivisionError"):
        ag.nn.functional.conv2d(x, w, padding=1)


def test_plugins_command_lists_plugins_registrations_and_errors():
    proc = _run("import sys; from arraygrad.cli import main; sys.exit(main(['plugins']))",
                ARRAYGRAD_TEST_BROKEN_PLUGINS="1")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "numpy  [arraygrad" in text and "registered backend numpy (cpu)" in text
    assert "dummy_broken_import  [arraygrad-dummy-plugin" in text and "ERROR:" in text
    proc = _run("import runpy, sys; sys.argv = ['arraygrad', 'plugins', '--strict']; "
                "runpy.run_module('arraygrad', run_name='__main__')",
                ARRAYGRAD_TEST_BROKEN_PLUGINS="1")
    assert proc.returncode == 1


def test_console_script_is_installed():
    import shutil

    exe = shutil.which("arraygrad", path=os.path.dirname(sys.executable))
    assert exe is not None, "the 'arraygrad' console script is not installed"
    proc = subprocess.run([exe, "backends"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "numpy" in proc.stdout
