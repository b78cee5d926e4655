"""Backend discovery through the ``arraygrad`` entry points, and how bad plugins are handled.

Needs the test distribution ``tests/plugins/dummy_plugin`` installed (the
Makefile does ``pip install -e tests/plugins/dummy_plugin``): it provides a
working ``dummy`` backend and two broken plugins.
"""

from __future__ import annotations

import importlib.metadata
import warnings

import pytest

import arraygrad as ag
from arraygrad.backends import (
    Availability, Backend, BackendRegistrationError, available, get_backend, register_backend,
)
from arraygrad.plugins import PluginLoadWarning, get_plugin_manager, hookimpl, plugin_errors
from arraygrad.plugins import register_plugin

quiet = pytest.mark.filterwarnings("ignore::arraygrad.plugins.PluginLoadWarning")


def _entry_point_names():
    return {ep.name for ep in importlib.metadata.entry_points(group="arraygrad")}


def test_dummy_distribution_is_installed():
    # Everything below relies on it; say so plainly instead of failing obscurely.
    names = _entry_point_names()
    assert {"dummy", "dummy_broken_import", "dummy_broken_register"} <= names, (
        "install the test plugins: pip install -e tests/plugins/dummy_plugin")


# -- (a) discovery -------------------------------------------------------------

@quiet
def test_entry_points_register_numpy_cupy_and_dummy(fresh_plugins):
    assert {"numpy", "cupy", "dummy"} <= _entry_point_names()
    pm = get_plugin_manager()
    for name in ("numpy", "cupy", "dummy", "dummy_broken_register"):
        assert pm.get_plugin(name) is not None, name
    # The module that cannot be imported is not registered at all.
    assert pm.get_plugin("dummy_broken_import") is None


@quiet
@pytest.mark.parametrize("cuda", ["here", "fake"])
def test_available_lists_backends_with_availability_and_reason(cuda, request):
    """Correct with and without a CUDA device: "here" is this machine (CuPy may or may not
    find a device), "fake" the NumPy-made fake CuPy with two devices."""
    if cuda == "fake":
        request.getfixturevalue("fake_cuda")(2)
    else:
        request.getfixturevalue("fresh_plugins")
    rows = {row.name: row for row in available()}
    assert {"numpy", "cupy", "dummy"} <= set(rows)

    numpy_row = rows["numpy"]
    assert (numpy_row.device_type, numpy_row.available, numpy_row.plugin) == ("cpu", True, "numpy")
    dummy_row = rows["dummy"]
    assert (dummy_row.device_type, dummy_row.available, dummy_row.plugin) == (
        "dummy", True, "dummy")

    cupy_row = rows["cupy"]
    assert cupy_row.device_type == "cuda"
    assert cupy_row.plugin == "cupy"
    status = _cupy_status()
    assert cupy_row.available is bool(status) is ag.cuda.is_available()
    if cuda == "fake":
        assert cupy_row.available
    if cupy_row.available:
        assert cupy_row.reason == ""
    else:
        assert "no CUDA device" in cupy_row.reason or "not installed" in cupy_row.reason
        assert cupy_row.reason == status.reason
    # Broken plugins register nothing and do not appear as backends.
    assert not any(name.startswith("dummy_broken") for name in rows)


def _cupy_status():
    """What the CuPy backend itself says about this machine (or the installed fake)."""
    from arraygrad_cupy import CupyBackend

    return CupyBackend().is_available()


@quiet
def test_discovery_runs_once_and_is_cached(fresh_plugins):
    first = get_backend("numpy")
    assert get_backend("numpy") is first
    assert ag.backends.backend_for_device("cpu") is first


# -- (b) broken plugins are isolated ------------------------------------------

def test_broken_plugins_warn_and_the_rest_still_work(fresh_plugins):
    with pytest.warns(PluginLoadWarning) as record:
        rows = {row.name: row for row in available()}
    messages = [str(w.message) for w in record if issubclass(w.category, PluginLoadWarning)]

    import_msgs = [m for m in messages if "dummy_broken_import" in m]
    assert len(import_msgs) == 1, messages
    assert "ImportError" in import_msgs[0]
    assert "simulated missing dependency" in import_msgs[0]
    assert "arraygrad_dummy.broken_import" in import_msgs[0]  # the entry point's target

    register_msgs = [m for m in messages if "dummy_broken_register" in m]
    assert len(register_msgs) == 1, messages
    assert "RuntimeError" in register_msgs[0]
    assert "simulated failure while registering" in register_msgs[0]

    errors = plugin_errors()
    assert "ImportError" in errors["dummy_broken_import"]
    assert "RuntimeError" in errors["dummy_broken_register"]

    assert rows["numpy"].available and rows["dummy"].available

    # The good plugins work end to end, autograd included.
    x = ag.tensor([1.0, 2.0], device="dummy", requires_grad=True)
    assert str(x.device) == "dummy"
    y = (x * x + 3 * x - x / 2).sum()
    y.backward()
    assert x.grad.device == x.device
    assert x.grad.tolist() == [2 * 1.0 + 2.5, 2 * 2.0 + 2.5]
    assert y.item() == pytest.approx(1 + 4 + 2.5 * 3)

    c = ag.tensor([1.0, 2.0], requires_grad=True)
    (c * c).sum().backward()
    assert c.grad.tolist() == [2.0, 4.0]


def test_warnings_are_not_repeated_once_registry_is_built(fresh_plugins):
    with pytest.warns(PluginLoadWarning):
        available()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginLoadWarning)
        available()  # cached: the failures are not reported again
        ag.tensor([1.0], device="dummy")


@quiet
def test_dummy_backend_moves_tensors_and_samples(fresh_plugins):
    x = ag.tensor([1.0, -2.0, 3.0], requires_grad=True)
    d = x.to("dummy")
    assert str(d.device) == "dummy"
    (d.relu() * 2).sum().backward()
    assert str(x.grad.device) == "cpu"
    assert x.grad.tolist() == [2.0, 0.0, 2.0]

    ag.manual_seed(3)
    a = ag.randn(4, device="dummy")
    ag.manual_seed(3)
    b = ag.randn(4, device="dummy")
    assert a.tolist() == b.tolist()

    # Indexing backward goes through the backend's scatter_add (repeated indices add up).
    w = ag.zeros(3, device="dummy", requires_grad=True)
    w[ag.tensor([0, 0, 2], device="dummy")].sum().backward()
    assert w.grad.tolist() == [2.0, 0.0, 1.0]


# -- (d) duplicate names -------------------------------------------------------

@quiet
def test_register_backend_duplicate_name_names_both_plugins(fresh_plugins):
    from arraygrad_numpy import NumpyBackend

    original = get_backend("numpy")
    with pytest.raises(BackendRegistrationError) as info:
        register_backend(NumpyBackend())
    message = str(info.value)
    assert "duplicate backend name 'numpy'" in message
    assert "'numpy'" in message and "'<register_backend>'" in message
    assert get_backend("numpy") is original


class _DuplicateNumpyPlugin:
    """A plugin whose hook registers a second backend called "numpy"."""

    @hookimpl
    def arraygrad_register_backends(self, register):
        from arraygrad_numpy import NumpyBackend

        register(NumpyBackend())


def test_plugin_registering_duplicate_name_is_reported(fresh_plugins):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginLoadWarning)
        get_plugin_manager()  # entry points first, so "numpy" is taken by its own plugin
        original = get_backend("numpy")

    register_plugin(_DuplicateNumpyPlugin(), name="dup_numpy")
    with pytest.warns(PluginLoadWarning) as record:
        rows = {row.name: row for row in available()}
    dup = [str(w.message) for w in record if "dup_numpy" in str(w.message)]
    assert len(dup) == 1, [str(w.message) for w in record]
    assert "BackendRegistrationError" in dup[0]
    assert "duplicate backend name 'numpy'" in dup[0]
    assert "plugin 'numpy'" in dup[0] and "plugin 'dup_numpy'" in dup[0]
    assert "BackendRegistrationError" in plugin_errors()["dup_numpy"]

    # The first registration stands; everything else is unaffected.
    assert rows["numpy"].plugin == "numpy"
    assert type(get_backend("numpy")) is type(original)
    assert ag.tensor([1.0, 2.0]).sum().item() == 3.0


@quiet
def test_register_plugin_twice_is_an_error(fresh_plugins):
    plugin = _DuplicateNumpyPlugin()
    register_plugin(plugin, name="once")
    with pytest.raises(ValueError, match="already registered"):
        register_plugin(plugin, name="once")


# -- (e) malformed backends ----------------------------------------------------

class _NamedBackend(Backend):
    """A Backend that is fine except for what a test sets on it."""

    def __init__(self, name="okname", device_type="cpu"):
        self.name, self.device_type = name, device_type

    def is_available(self):
        return Availability(True)

    @property
    def xp(self):
        raise AssertionError("not used")

    def make_generator(self, seed):
        raise AssertionError("not used")

    def scatter_add(self, target, key, values):
        raise AssertionError("not used")

    def to_host(self, array):
        raise AssertionError("not used")


@quiet
@pytest.mark.parametrize("bad, match", [
    (object(), "not an arraygrad.backends.Backend"),
    ("numpy", "not an arraygrad.backends.Backend"),
    (type("LooksLikeABackend", (), {"name": "fake", "device_type": "cpu"})(),
     "not an arraygrad.backends.Backend"),
    (_NamedBackend(name=""), "invalid name"),
    (_NamedBackend(name="has space"), "invalid name"),
    (_NamedBackend(name=None), "invalid name"),
    (_NamedBackend(device_type=""), "no device_type"),
])
def test_register_backend_rejects_malformed(fresh_plugins, bad, match):
    with pytest.raises(BackendRegistrationError, match=match):
        register_backend(bad)
    assert get_backend("numpy").is_available()


class _MalformedPlugin:
    """A plugin that registers something that is not a Backend."""

    @hookimpl
    def arraygrad_register_backends(self, register):
        register({"name": "fake", "device_type": "cpu"})


def test_plugin_registering_malformed_backend_is_reported(fresh_plugins):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PluginLoadWarning)
        get_plugin_manager()
    register_plugin(_MalformedPlugin(), name="malformed")
    with pytest.warns(PluginLoadWarning) as record:
        names = {row.name for row in available()}
    bad = [str(w.message) for w in record if "'malformed'" in str(w.message)]
    assert len(bad) == 1, [str(w.message) for w in record]
    assert "BackendRegistrationError" in bad[0] and "not an arraygrad.backends.Backend" in bad[0]
    assert "fake" not in names and "numpy" in names


@quiet
def test_a_backend_that_passes_checks_can_be_registered_by_hand(fresh_plugins):
    backend = _NamedBackend(name="handmade", device_type="handmade")
    register_backend(backend)
    rows = {row.name: row for row in available()}
    assert rows["handmade"].plugin == "<register_backend>"
    assert ag.backends.backend_for_device("handmade") is backend


@quiet
def test_missing_backend_and_device_errors_are_clear(fresh_plugins):
    with pytest.raises(RuntimeError, match="no arraygrad backend named 'nope'.*found:"):
        get_backend("nope")
    with pytest.raises(RuntimeError, match="no arraygrad backend serves device 'tpu'"):
        ag.tensor([1.0], device="tpu")
