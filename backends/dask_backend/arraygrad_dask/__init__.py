"""arraygrad's Dask backend: chunked, lazy ``dask.array`` arrays, registered through the
``arraygrad`` entry point as ``dask`` (install with ``pip install arraygrad[dask]``)."""

from arraygrad_dask.backend import DaskBackend

__all__ = ["DaskBackend"]
