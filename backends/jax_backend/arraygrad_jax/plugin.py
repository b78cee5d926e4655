"""Entry point module: registers the JAX backend and declares its conformance facts.

Neither hook imports JAX: discovery stays cheap and works where JAX is missing (the backend
then reports itself unavailable, with the reason).
"""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register the JAX backend (device type ``jax``, or ``cuda`` with ``jax[cuda]``)."""
    from arraygrad_jax.backend import JaxBackend

    register(JaxBackend())


@hookimpl
def arraygrad_conformance(register):
    """Declare what the JAX backend lacks, and its expected failures with their reasons."""
    from arraygrad_jax.conformance import CAPABILITIES, XFAIL

    register.backend("jax", capabilities=CAPABILITIES, xfail=XFAIL)
