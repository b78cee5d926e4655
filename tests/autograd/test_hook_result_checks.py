"""A tensor hook must return None or a gradient of the same shape, dtype and device, as
PyTorch requires: a hook returning a float64 gradient left a float64 ``.grad`` on a float32
leaf, and one returning a float raised AttributeError (PyTorch: TypeError)."""

import pytest

import arraygrad as ag


def _leaf_and_output(on_leaf: bool):
    x = ag.ones(2, requires_grad=True)
    y = x * 2
    return x, y, (x if on_leaf else y)


@pytest.mark.parametrize("on_leaf", [False, True], ids=["non_leaf", "leaf"])
def test_a_hook_changing_the_dtype_is_refused(on_leaf):
    x, y, target = _leaf_and_output(on_leaf)
    target.register_hook(lambda g: g.double())
    with pytest.raises(RuntimeError, match="has changed the type of value"):
        y.sum().backward()
    assert x.grad is None  # all-or-nothing: nothing was written


@pytest.mark.parametrize("on_leaf", [False, True], ids=["non_leaf", "leaf"])
def test_a_hook_returning_a_number_is_a_type_error(on_leaf):
    x, y, target = _leaf_and_output(on_leaf)
    target.register_hook(lambda g: 1.0)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'float'"):
        y.sum().backward()
    assert x.grad is None


def test_a_hook_returning_the_same_kind_of_gradient_still_replaces_it():
    x, y, _ = _leaf_and_output(False)
    y.register_hook(lambda g: g * 3)
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 6.0] and x.grad.dtype is ag.float32
