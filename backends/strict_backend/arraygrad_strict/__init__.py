"""arraygrad's strict reference backend on ``array_api_strict`` (the Array API's own minimal
implementation), registered through the ``arraygrad`` entry point as ``strict``."""

from arraygrad_strict.backend import StrictBackend, StrictGenerator

__all__ = ["StrictBackend", "StrictGenerator"]
