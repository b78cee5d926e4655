"""``arraygrad.utils``: ``utils.data`` (datasets and loaders)."""

from arraygrad.utils import data

__all__ = ["data"]
