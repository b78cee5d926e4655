"""Entry point module: registers the NumPy backend, as any third-party backend would."""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register the NumPy CPU backend."""
    from arraygrad_numpy.backend import NumpyBackend

    register(NumpyBackend())
