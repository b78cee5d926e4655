"""``arraygrad.utils``: ``utils.data`` (datasets and loaders), ``utils.checkpoint``."""

from arraygrad.utils import checkpoint, data

__all__ = ["checkpoint", "data"]
