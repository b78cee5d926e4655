"""Entry point module: registers the Dask backend and declares its conformance facts.

Neither hook imports Dask: discovery stays cheap and works where Dask is missing (the
backend then reports itself unavailable, with the reason).
"""

from arraygrad.plugins import hookimpl


@hookimpl
def arraygrad_register_backends(register):
    """Register the Dask backend (device type ``dask``)."""
    from arraygrad_dask.backend import DaskBackend

    register(DaskBackend())


@hookimpl
def arraygrad_conformance(register):
    """Declare what the Dask backend lacks, and its expected failures with their reasons."""
    from arraygrad_dask.conformance import CAPABILITIES, XFAIL

    register.backend("dask", capabilities=CAPABILITIES, xfail=XFAIL)
