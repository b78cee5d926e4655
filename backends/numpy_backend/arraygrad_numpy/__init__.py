"""arraygrad's CPU backend on NumPy, registered through the ``arraygrad`` entry point."""

from arraygrad_numpy.backend import NumpyBackend, NumpyGenerator

__all__ = ["NumpyBackend", "NumpyGenerator"]
