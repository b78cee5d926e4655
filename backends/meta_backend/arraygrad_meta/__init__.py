"""arraygrad's ``meta`` device: tensors with a shape, a dtype and strides, and no storage,
registered through the ``arraygrad`` entry point as ``meta`` (see ``backend``)."""

from arraygrad_meta.backend import MetaBackend, MetaGenerator

__all__ = ["MetaBackend", "MetaGenerator"]
