"""Entry point module: registers the strict backend and declares its conformance facts.

Neither hook imports ``array_api_strict``: discovery stays cheap and works
where the library is missing (the backend then reports itself unavailable).
"""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register the strict backend (device type ``strict``)."""
    from arraygrad_strict.backend import StrictBackend

    register(StrictBackend())


@hookimpl
def arraygrad_conformance(register):
    """Declare what the strict backend provides, and the gaps the standard leaves."""
    from arraygrad_strict.conformance import CAPABILITIES, XFAIL

    register.backend("strict", capabilities=CAPABILITIES, xfail=XFAIL)
