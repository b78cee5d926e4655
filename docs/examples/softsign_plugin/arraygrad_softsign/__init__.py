"""Example arraygrad op plugin: ``softsign(x) = x / (1 + |x|)``, with ``Tensor.softsign()``."""

from arraygrad_softsign.plugin import softsign

__all__ = ["softsign"]
