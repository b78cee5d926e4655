"""``backward``/``grad``: accumulation, retain_graph, create_graph, inputs=, and the errors."""

import warnings

import pytest

import arraygrad as ag


def test_gradients_accumulate_across_calls():
    x = ag.tensor([1., 2.], requires_grad=True)
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [6., 6.]


def test_accumulation_is_in_place_on_the_existing_grad():
    x = ag.tensor([1., 2.], requires_grad=True)
    (x * 1).sum().backward()
    g = x.grad
    (x * 2).sum().backward()
    assert g is x.grad and g.tolist() == [3., 3.]


def test_grad_does_not_alias_the_user_gradient():
    x = ag.tensor([1., 2.], requires_grad=True)
    seed = ag.tensor([1., 1.])
    (x + 0).backward(seed)
    seed.mul_(5)
    assert x.grad.tolist() == [1., 1.]


def test_retain_graph_allows_second_backward():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4., 8.]


def test_second_backward_through_freed_graph_raises():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="second time"):
        y.backward()


def test_saved_tensors_of_freed_node_raise():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="freed"):
        y.grad_fn.saved_tensors


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        ag.tensor([1., 2.]).sum().backward()


def test_non_scalar_output_needs_gradient():
    x = ag.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        (x * 2).backward()


def test_gradient_of_wrong_shape_raises_and_changes_nothing():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        y.backward(ag.tensor([1., 1., 1.]))
    assert x.grad is None
    y.backward(ag.tensor([1., 1.]))  # the graph is intact
    assert x.grad.tolist() == [2., 2.]


def test_gradient_not_a_tensor_raises_type_error():
    x = ag.tensor([1., 2.], requires_grad=True)
    with pytest.raises(TypeError):
        (x * 2).backward([1., 1.])


def test_float64_gradient_is_cast_to_output_dtype():
    x = ag.tensor([1., 2.], requires_grad=True)
    (x * 2).backward(ag.tensor([1., 1.], dtype=ag.float64))
    assert x.grad.dtype is ag.float32


def test_autograd_grad_unused_input():
    x = ag.tensor([1.], requires_grad=True)
    u = ag.tensor([1.], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        ag.autograd.grad(y, [x, u], retain_graph=True)
    gx, gu = ag.autograd.grad(y, [x, u], allow_unused=True, retain_graph=True)
    assert gx.tolist() == [2.] and gu is None
    gx, gu = ag.autograd.grad(y, [x, u], materialize_grads=True)
    assert gu.tolist() == [0.]


def test_autograd_grad_input_without_grad_raises():
    x = ag.tensor([1.], requires_grad=True)
    with pytest.raises(RuntimeError, match="does not require grad"):
        ag.autograd.grad(x * 2, [ag.tensor([1.])])


def test_autograd_grad_leaves_dot_grad_alone():
    x = ag.tensor([1., 2.], requires_grad=True)
    (g,) = ag.autograd.grad((x * x).sum(), x)
    assert g.tolist() == [2., 4.] and x.grad is None and not g.requires_grad


def test_create_graph_gives_higher_derivatives():
    x = ag.tensor([2.], requires_grad=True)
    (g1,) = ag.autograd.grad(x ** 3, x, create_graph=True)
    (g2,) = ag.autograd.grad(g1, x, create_graph=True)
    (g3,) = ag.autograd.grad(g2, x)
    assert (g1.item(), g2.item(), g3.item()) == (12., 12., 6.)


def test_gradient_of_linear_function_does_not_require_grad():
    x = ag.tensor([1., 2.], requires_grad=True)
    (g,) = ag.autograd.grad((3 * x).sum(), x, create_graph=True)
    assert g.requires_grad is False


def test_gradient_penalty_backward_through_grad():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = (x ** 3).sum()
    (g,) = ag.autograd.grad(y, x, create_graph=True)  # 3x^2
    (g * g).sum().backward()  # d/dx sum(9x^4) = 36 x^3
    assert x.grad.tolist() == [36., 288.]


def test_backward_create_graph_keeps_grad_graph():
    x = ag.tensor([3.], requires_grad=True)
    (x ** 2).backward(create_graph=True)
    assert x.grad.requires_grad
    (g2,) = ag.autograd.grad(x.grad, x)
    assert g2.tolist() == [2.]


def test_backward_inputs_restricts_accumulation():
    a = ag.tensor([1.], requires_grad=True)
    b = ag.tensor([1.], requires_grad=True)
    c = a * b * 3
    c2 = c * 1
    c2.backward(inputs=[a], retain_graph=True)
    assert a.grad.tolist() == [3.] and b.grad is None
    c2.backward(inputs=[c])
    assert c.grad.tolist() == [1.]


def test_backward_inputs_empty_raises():
    a = ag.tensor([1.], requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (a * 2).backward(inputs=[])


def test_multiple_roots_with_grad_tensors():
    a = ag.tensor([1., 2.], requires_grad=True)
    ag.autograd.backward([a * 2, a * 3], [ag.ones(2), ag.ones(2)])
    assert a.grad.tolist() == [5., 5.]


def test_non_leaf_grad_warns_and_is_none():
    x = ag.tensor([1.], requires_grad=True)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="not a leaf"):
        assert y.grad is None


def test_retain_grad_accumulates():
    x = ag.tensor([1.], requires_grad=True)
    y = x * 2
    y.retain_grad()
    assert y.retains_grad
    (y * 3).sum().backward(retain_graph=True)
    (y * 3).sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [6.]


def test_leaf_and_requires_grad_rules():
    with pytest.raises(RuntimeError, match="floating point"):
        ag.tensor([1, 2], requires_grad=True)
    with pytest.raises(RuntimeError, match="floating point"):
        ag.tensor([True]).requires_grad_()
    x = ag.tensor([1.], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad = False
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad = True  # the attribute of a non-leaf cannot be set, as in PyTorch
    with pytest.raises(RuntimeError, match="leaf variables"):
        y.requires_grad_(False)
    assert y.requires_grad_() is y  # PyTorch: requires_grad_(True) on a non-leaf is a no-op


def test_integer_tensor_ops_do_not_require_grad():
    x = ag.tensor([1., 2.], requires_grad=True)
    idx = x.argmax()
    assert idx.requires_grad is False and idx.grad_fn is None
    assert (x > 1).requires_grad is False


def test_grad_fn_names_and_next_functions():
    a = ag.tensor([1.], requires_grad=True)
    b = ag.tensor([2.])
    y = (a * b).sum()
    assert y.grad_fn.name() == "SumBackward0"
    (mul, nr), = y.grad_fn.next_functions
    assert mul.name() == "MulBackward0" and nr == 0
    (acc, _), (none, _) = mul.next_functions
    assert acc.name() == "AccumulateGrad" and acc.variable is a and none is None


def test_detach_shares_data_and_version_but_data_does_not_share_version():
    x = ag.tensor([1., 2.], requires_grad=True)
    d = x.detach()
    assert d.requires_grad is False
    with ag.no_grad():
        x.mul_(2)
    assert d.tolist() == [2., 4.]
    assert d._version == x._version == 1
    raw = x.data
    raw.add_(1)
    assert x.tolist() == [3., 5.] and x._version == 1 and raw._version == 1


def test_inplace_on_leaf_requiring_grad_raises_outside_no_grad():
    x = ag.tensor([1., 2.], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.add_(1)
    with ag.no_grad():
        x.add_(1)
    assert x.tolist() == [2., 3.] and x.is_leaf and x.requires_grad


def test_modified_saved_tensor_raises_version_error():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 1
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_inplace_on_non_leaf_rebases_history():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.mul_(3)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [6., 6.]


def test_setitem_on_non_leaf():
    x = ag.tensor([1., 2., 3.], requires_grad=True)
    y = x * 1
    y[1] = 10.
    y.sum().backward()
    assert y.tolist() == [1., 10., 3.] and x.grad.tolist() == [1., 0., 1.]


def test_autograd_grad_takes_any_iterable_of_inputs():
    # PyTorch's tuple(inputs): MAML passes a ParameterList, others model.parameters()
    net = ag.nn.Linear(3, 2)
    loss = net(ag.ones(1, 3)).sum()
    by_list = ag.autograd.grad(loss, list(net.parameters()), retain_graph=True)
    by_params = ag.autograd.grad(loss, ag.nn.ParameterList(net.parameters()), retain_graph=True)
    by_generator = ag.autograd.grad(loss, net.parameters())
    for a, b, c in zip(by_list, by_params, by_generator):
        assert ag.equal(a, b) and ag.equal(a, c)
    with pytest.raises(TypeError, match="expected a Tensor or a sequence of Tensors"):
        ag.autograd.grad(loss, 3)
