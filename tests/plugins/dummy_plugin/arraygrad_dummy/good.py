"""A working plugin: registers the ``dummy`` backend (NumPy arrays on a ``dummy`` device)."""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register ``DummyBackend``; NumPy is imported only now, not at discovery."""
    from arraygrad_dummy.backend import DummyBackend

    register(DummyBackend())
