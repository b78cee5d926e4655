"""PyTorch's messages for what a meta tensor cannot do: read or copy out a value, or compute
an op whose result's shape depends on the values (``nonzero``, ``unique``)."""

__all__ = ["ITEM", "NUMPY", "NO_DATA", "NONZERO", "REPEATS", "no_kernel"]

ITEM = "Tensor.item() cannot be called on meta tensors"
"""``item()``, ``float(t)``, ``bool(t)``... (RuntimeError)."""

NUMPY = ("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
         "to host memory first.")
"""``numpy()``, ``__array__``, DLPack (TypeError)."""

NO_DATA = "Cannot copy out of meta tensor; no data!"
"""``tolist()``, ``to("cpu")``, a copy into a tensor that has values (NotImplementedError)."""

NONZERO = ("The register_meta function for torch.nonzero() raises unimplemented by default, as "
           "a correct data-independent implementation does not exist. This implementation "
           "returns a fake value, assuming all elements of the tensor are non-zero. To enable "
           "this registration, please set "
           "'torch.fx.experimental._config.meta_nonzero_assume_all_nonzero' to True.")
"""``nonzero``, boolean-mask indexing, ``where(cond)`` (NotImplementedError)."""

REPEATS = "cannot repeat_interleave a meta tensor without output_size"
"""``repeat_interleave`` with a tensor of repeats (RuntimeError)."""


def no_kernel(op: str) -> str:
    """PyTorch's NotImplementedError message for an op without a meta kernel (``aten::_unique2``)."""
    return (f"{op}: attempted to run this operator with Meta tensors, but there was no fake impl "
            "or Meta kernel registered. You may have run into this message while using an "
            "operator with PT2 compilation APIs (torch.compile/torch.export); in order to use "
            "this operator with those APIs you'll need to add a fake impl. Please see the "
            "following for next steps:  "
            "https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html")
