"""Entry point module: registers the meta backend and declares its conformance facts.

Neither hook imports NumPy: discovery stays cheap.
"""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register the meta backend (device type ``meta``)."""
    from arraygrad_meta.backend import MetaBackend

    register(MetaBackend())


@hookimpl
def arraygrad_conformance(register):
    """Declare that the meta backend holds no values (the suite checks shapes and dtypes)."""
    from arraygrad_meta.conformance import CAPABILITIES, XFAIL

    register.backend("meta", capabilities=CAPABILITIES, xfail=XFAIL)
