"""Names ``nn.functional`` exposes for TorchScript-era code and its own docstrings:
``BroadcastingList1/2/3`` (annotations), ``boolean_dispatch``, ``assert_int_or_pair``, the
``grid_sample`` mode tables, the documentation note dicts, and ``Tensor``."""

from __future__ import annotations

from typing import Any, Callable

from arraygrad.tensor import Tensor

__all__ = ["BroadcastingList1", "BroadcastingList2", "BroadcastingList3", "boolean_dispatch",
           "assert_int_or_pair", "GRID_SAMPLE_INTERPOLATION_MODES", "GRID_SAMPLE_PADDING_MODES",
           "reproducibility_notes", "sparse_support_notes", "tf32_notes", "Tensor"]


class _BroadcastingListCls:
    """``BroadcastingList2[int]``: an annotation meaning "an int or a list of 2 ints"; outside
    TorchScript subscripting it gives None, as PyTorch's."""

    def __getitem__(self, types: Any) -> None:
        return None


BroadcastingList1 = _BroadcastingListCls()
BroadcastingList2 = _BroadcastingListCls()
BroadcastingList3 = _BroadcastingListCls()

# grid_sample's modes as the integers of PyTorch's grid_sampler kernels (torch.grid_sampler)
GRID_SAMPLE_INTERPOLATION_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
GRID_SAMPLE_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}

# the note texts PyTorch formats into its docstrings (``{forward_reproducibility_note}``)
reproducibility_notes = {
    "forward_reproducibility_note": "This operation may behave nondeterministically when "
    "given tensors on a CUDA device. See :doc:`/notes/randomness` for more information.",
    "backward_reproducibility_note": "This operation may produce nondeterministic gradients "
    "when given tensors on a CUDA device. See :doc:`/notes/randomness` for more information.",
    "cudnn_reproducibility_note": "In some circumstances when given tensors on a CUDA device "
    "and using CuDNN, this operator may select a nondeterministic algorithm to increase "
    "performance. If this is undesirable, you can try to make the operation deterministic "
    "(potentially at a performance cost) by setting ``torch.backends.cudnn.deterministic = "
    "True``. See :doc:`/notes/randomness` for more information.",
}
sparse_support_notes = {
    "sparse_beta_warning": "\n.. warning::\n    Sparse support is a beta feature and some "
    "layout(s)/dtype/device combinations may not be supported,\n    or may not have autograd "
    "support. If you notice missing functionality please\n    open a feature request.",
}
tf32_notes = {
    "tf32_note": "This operator supports :ref:`TensorFloat32<tf32_on_ampere>`.",
}


def assert_int_or_pair(arg: Any, arg_name: str, message: str) -> None:
    """AssertionError with ``message.format(arg_name)`` unless ``arg`` is an int or a pair."""
    if not (isinstance(arg, int) or len(arg) == 2):
        raise AssertionError(message.format(arg_name))


def boolean_dispatch(arg_name: str, arg_index: int, default: bool,
                     if_true: Callable[..., Any], if_false: Callable[..., Any],
                     module_name: str | None, func_name: str | None) -> Callable[..., Any]:
    """A function calling ``if_true`` or ``if_false`` by the boolean argument ``arg_name``
    (keyword, else position ``arg_index``, else ``default``): how ``max_pool2d`` picks its
    ``return_indices`` form. It takes the docstring of whichever of the two has one."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        flag = default
        if arg_name in kwargs:
            flag = kwargs[arg_name]
        elif arg_index < len(args):
            flag = args[arg_index]
        return if_true(*args, **kwargs) if flag else if_false(*args, **kwargs)

    if if_true.__doc__ is None and if_false.__doc__ is not None:
        if_true.__doc__ = doc = if_false.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is not None:
        if_false.__doc__ = doc = if_true.__doc__
    elif if_false.__doc__ is None and if_true.__doc__ is None:
        doc = None
    else:
        raise RuntimeError("only one function can have a docstring")
    fn.__doc__ = doc
    if module_name is not None:
        fn.__module__ = module_name
    if func_name is not None:
        fn.__name__ = func_name
    return fn
