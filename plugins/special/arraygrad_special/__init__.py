"""arraygrad-special: SciPy (NumPy backend) and cupyx (CuPy backend) kernels for arraygrad's
special functions, as an op plugin.

The functions themselves -- ``arraygrad.special.*``, ``arraygrad.lgamma`` ..., the ``Tensor``
methods -- are arraygrad's own, with portable Array API implementations that every backend
runs. Installed, this plugin registers faster per-backend kernels for them
(``registry.kernel``); each op runs its kernel when there is one and falls back to the
portable code when the kernel declines (SciPy missing) or fails.

Nothing is imported here, so discovering the entry point stays cheap.
"""

__version__ = "0.2.0"
