"""Every hook a plugin may implement, in one place.

Hooks take a *registrar* callable rather than returning values, so a plugin
can register several things and the host can check each one as it arrives.
"""

from arraygrad.plugins.markers import hookspec


@hookspec
def arraygrad_register_backends(register):
    """Register array backends: call ``register(backend)`` with ``Backend`` instances."""
