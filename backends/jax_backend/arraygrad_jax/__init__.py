"""arraygrad's JAX backend: ``jax.numpy`` arrays (immutable), registered through the
``arraygrad`` entry point as ``jax`` (install with ``pip install arraygrad[jax]``)."""

from arraygrad_jax.backend import JaxBackend

__all__ = ["JaxBackend"]
