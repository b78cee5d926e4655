"""Run the conformance suite on one backend in a fresh interpreter, hermetically.

Plugin autoload is switched off and only the named plugin modules are
registered, so the outcome does not depend on whatever else is installed in
the environment. ``python runner.py BACKEND PLUGIN_MODULE... -- PYTEST_ARGS``.

With ``ARRAYGRAD_TEST_FAKE_CUPY=N`` the NumPy-made fake CuPy of
``tests/plugins/fake_cupy.py`` (N devices) is installed first, so ``cupy``
runs the suite on any machine.
"""

import importlib
import os
import sys

from arraygrad.plugins import register_plugin


def main(argv):
    """Register the plugin modules, then run ``pytest --pyargs arraygrad.conformance``."""
    sep = argv.index("--")
    backend, modules, pytest_args = argv[0], argv[1:sep], argv[sep + 1:]
    fake_devices = os.environ.get("ARRAYGRAD_TEST_FAKE_CUPY")
    if fake_devices:
        import fake_cupy

        fake_cupy.install(int(fake_devices))
    for i, name in enumerate(modules):
        register_plugin(importlib.import_module(name), name=f"plugin{i}")
    import pytest

    return pytest.main(["--pyargs", "arraygrad.conformance", f"--arraygrad-backend={backend}",
                        "-p", "no:cacheprovider", "-q", "-p", "no:warnings", *pytest_args])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
