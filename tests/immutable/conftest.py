"""The backends of these tests: JAX (immutable arrays) and Dask (lazy arrays), each skipped
with a reason only when its package is not installed (``make test`` installs both)."""

import importlib.util
import sys

import pytest

import arraygrad as ag

_MODULES = {"jax": "jax", "dask": "dask.array"}


def _no_test_directory_as_sparse():
    """``dask.array`` probes for the pydata ``sparse`` package (``import sparse``); once pytest
    has put ``tests/`` on ``sys.path`` (it does for the test packages), ``tests/sparse`` would
    answer as a namespace package without ``SparseArray`` and break that import: tell Python
    there is no such package."""
    if "sparse" not in sys.modules:
        spec = importlib.util.find_spec("sparse")
        if spec is not None and spec.origin is None:  # a directory, not the package
            sys.modules["sparse"] = None  # type: ignore[assignment]


def device_of(name):
    """The device type of backend ``name``; skips when its package is absent."""
    module = _MODULES[name]
    _no_test_directory_as_sparse()
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
