"""The backends of these tests: JAX (immutable arrays) and Dask (lazy arrays), each skipped
with a reason only when its package is not installed (``make test`` installs both)."""

import pytest

import arraygrad as ag

_MODULES = {"jax": "jax", "dask": "dask.array"}


def device_of(name):
    """The device type of backend ``name``; skips when its package is absent."""
    module = _MODULES[name]
    pytest.importorskip(module, reason=f"{module} is not installed (pip install arraygrad[{name}])")
    backend = ag.backends.get_backend(name)
    assert backend.is_available(), backend.is_available().reason  # installed: it must work
    return backend.device_type


@pytest.fixture(params=sorted(_MODULES))
def device(request):
    """The device type of each of the two backends in turn."""
    return device_of(request.param)


@pytest.fixture
def jax_device():
    return device_of("jax")


@pytest.fixture
def dask_device():
    return device_of("dask")
