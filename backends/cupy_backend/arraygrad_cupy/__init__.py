"""arraygrad's CUDA backend on CuPy, registered through the ``arraygrad`` entry point.

Importing this package does not import CuPy: the backend touches CuPy only
when it is probed (``is_available``) or used, so ``import arraygrad`` and
plugin discovery stay fast and work on machines without CUDA.
"""

from arraygrad_cupy.backend import CupyBackend, CupyEvent, CupyGenerator

__all__ = ["CupyBackend", "CupyEvent", "CupyGenerator"]
