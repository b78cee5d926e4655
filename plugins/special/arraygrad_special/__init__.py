"""arraygrad-special: special functions for arraygrad, as an op plugin.

Once installed, ``arraygrad.special.erf`` (and ``erfc``, ``erfinv``, ``lgamma``/``gammaln``,
``digamma``/``psi``, ``polygamma``, ``i0``, ``i1``, ``xlogy``, ``logit``, ``expit``) and the
PyTorch ``Tensor`` methods (``x.erf()``, ``x.lgamma()``, ``x.polygamma(n)``, ...) exist.
The functions are also importable from ``arraygrad_special.ops``.

Nothing is imported here, so discovering the entry point stays cheap.
"""

__version__ = "0.1.0"
