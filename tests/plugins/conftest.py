"""Fixtures for the plugin tests: isolated plugin state, a fake cupy, fresh interpreters.

The plugin manager and backend registry are process-wide. Tests that rebuild
them snapshot the exact objects first and put them back afterwards, because
the core compares backends by identity: tensors made by other test modules
before this one ran must keep working with tensors made after it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DISABLE_ENV = "ARRAYGRAD_DISABLE_PLUGIN_AUTOLOAD"


BROKEN_ENV = "ARRAYGRAD_TEST_BROKEN_PLUGINS"


@pytest.fixture
def fresh_plugins(monkeypatch):
    """Forget every plugin so discovery runs again; restore the previous state after.

    The dummy distribution's two broken plugins break only under
    ``ARRAYGRAD_TEST_BROKEN_PLUGINS=1``, which this fixture sets.
    Yields ``arraygrad.plugins.manager``.
    """
    monkeypatch.setenv(BROKEN_ENV, "1")
    # an earlier, quiet import would be reused from the module cache: import it afresh
    monkeypatch.delitem(sys.modules, "arraygrad_dummy.broken_import", raising=False)
    from arraygrad.backends import registry
    from arraygrad.plugins import manager

    saved = (manager._pm, manager._loaded, dict(manager._errors), registry._backends,
             dict(registry._origin), dict(registry._device_cache))
    manager._reset_for_tests()
    try:
        yield manager
    finally:
        manager._reset_for_tests()  # also tells the registry to forget what it built
        pm, loaded, errors, backends, origin, device_cache = saved
        manager._pm, manager._loaded = pm, loaded
        manager._errors.update(errors)
        registry._backends = backends
        registry._origin.update(origin)
        registry._device_cache.update(device_cache)


@pytest.fixture
def fake_cuda(monkeypatch, fresh_plugins):
    """Install a fake cupy (``fake_cupy.FakeCuda``); returns a factory ``make(n_devices)``."""
    import array_api_compat

    from arraygrad_cupy import backend as cupy_backend_module
    from fake_cupy import FakeCuda

    def make(n_devices=2, **options):
        fake = FakeCuda(n_devices, **options)
        for name, module in fake.modules.items():
            monkeypatch.setitem(sys.modules, name, module)
        monkeypatch.setattr(array_api_compat, "cupy", fake.modules["array_api_compat.cupy"],
                            raising=False)
        cupy_backend_module._reset_probe()
        fresh_plugins._reset_for_tests()  # new CupyBackend instances, nothing cached
        return fake

    yield make
    cupy_backend_module._reset_probe()


@pytest.fixture
def cupy_on_fake(fake_cuda):
    """The CuPy backend on a one-device fake whose arrays a stream capture records."""
    from arraygrad.backends import get_backend

    fake = fake_cuda(1, device_arrays=True)
    backend = get_backend("cupy")
    assert backend.is_available()
    return fake, backend


@pytest.fixture
def run_python():
    """Run code in a fresh interpreter; returns the JSON it prints on its last line.

    ``env`` adds variables; the autoload switch is removed unless given, so the
    parent's environment cannot leak into the child.
    """

    def run(code: str, env: dict[str, str] | None = None) -> object:
        child_env = {k: v for k, v in os.environ.items() if k != DISABLE_ENV}
        child_env.update(env or {})
        proc = subprocess.run([sys.executable, "-c", code], env=child_env, cwd=REPO_ROOT,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, f"child failed:\n{proc.stdout}\n{proc.stderr}"
        return json.loads(proc.stdout.strip().splitlines()[-1])

    return run
