"""A working plugin: registers the ``dummy`` backend (NumPy arrays on a ``dummy`` device)."""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register ``DummyBackend``; NumPy is imported only now, not at discovery."""
    from arraygrad_dummy.backend import DummyBackend

    register(DummyBackend())


@hookimpl
def arraygrad_conformance(register):
    """Declare what the backend lacks: array_api_compat's NumPy namespace has no bfloat16."""
    register.backend("dummy", capabilities={"lacks": {"bfloat16": "NumPy has no bfloat16"}})
