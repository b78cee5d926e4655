"""``torch.autograd.graph``'s names: GradientEdge, get_gradient_edge, increment_version,
allow_mutation_on_saved_tensors, RemovableHandle's keywords, the stream switches; and
``autograd.grad``/``backward``'s inputs (non-tensors refused as PyTorch, issue 23 bug 6;
GradientEdges and dicts taken)."""

import collections

import pytest

import arraygrad as ag
from arraygrad.autograd import graph


def test_non_tensor_inputs_raise_runtime_error():
    x = ag.ones(2, requires_grad=True)
    for bad in ([x, 3], [x, None]):
        with pytest.raises(RuntimeError, match="all inputs have to be Tensors or GradientEdges, "
                                               "but got"):
            ag.autograd.grad(x.sum(), bad)


def test_non_tensor_inputs_match_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    x, tx = ag.ones(2, requires_grad=True), torch.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as ours:
        ag.autograd.grad(x.sum(), [x, 3])
    with pytest.raises(RuntimeError) as theirs:
        torch.autograd.grad(tx.sum(), [tx, 3])
    assert str(ours.value) == str(theirs.value)


def test_gradient_edge_stands_for_its_tensor():
    x = ag.tensor([1., 2.], requires_grad=True)
    h = x * 3
    loss = (h ** 2).sum()
    edge = graph.get_gradient_edge(h)
    assert isinstance(edge, graph.GradientEdge) and edge.node is h.grad_fn and edge.output_nr == 0
    (by_edge,) = ag.autograd.grad(loss, edge, retain_graph=True)
    (by_tensor,) = ag.autograd.grad(loss, h, retain_graph=True)
    assert by_edge.tolist() == by_tensor.tolist() == [6.0, 12.0]
    leaf = graph.get_gradient_edge(x)
    assert leaf.node.name() == "AccumulateGrad" and leaf.node.variable is x
    # an edge as an output: its gradient is given
    (g,) = ag.autograd.grad(edge, x, grad_outputs=ag.ones(2), retain_graph=True)
    assert g.tolist() == [3.0, 3.0]
    loss.backward(inputs=[leaf])
    assert x.grad.tolist() == [18.0, 36.0]


def test_gradient_edge_of_a_tensor_without_grad_is_refused():
    with pytest.raises(RuntimeError, match="does not require gradients"):
        graph.get_gradient_edge(ag.ones(2))


def test_grad_with_dict_inputs_returns_a_dict():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = ag.tensor([3.], requires_grad=True)
    out = ag.autograd.grad((x * y).sum(), {"x": x, "y": y})
    assert list(out) == ["x", "y"]
    assert out["x"].tolist() == [3.0, 3.0] and out["y"].tolist() == [3.0]
    with pytest.raises(TypeError, match="must be a dict, not OrderedDict"):
        ag.autograd.grad((x * y).sum(), collections.OrderedDict(x=x))


def test_gradient_edges_match_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    results = []
    for lib in (ag, torch):
        x = lib.tensor([1., 2., 3.], dtype=lib.float64, requires_grad=True)
        h = x.sin()
        loss = (h * h).sum()
        e = lib.autograd.graph.get_gradient_edge(h)
        results.append((e.output_nr, type(e.node).__name__,
                        lib.autograd.grad(loss, e)[0].tolist()))
    assert results[0] == results[1]


def test_increment_version_makes_saved_values_stale():
    a = ag.tensor([1., 2.], requires_grad=True)
    b = a * 1
    out = (b * b).sum()
    before = b._version
    graph.increment_version(b)
    assert b._version == before + 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.backward()
    graph.increment_version([ag.ones(1), ag.ones(1)])  # an iterable too
    with ag.inference_mode():
        t = ag.ones(1)
    graph.increment_version(t)  # an inference tensor has no counter: left alone
    assert t._version == 0


def test_allow_mutation_on_saved_tensors_pytorch_example():
    with graph.allow_mutation_on_saved_tensors() as ctx:
        a = ag.ones(2, 3, requires_grad=True)
        b = a.clone()
        out = (b ** 2).sum()
        b.sin_()
        assert len(ctx.cloned) == 1  # pow's saved b was cloned before sin_
        out.sum().backward()
        assert a.grad.tolist() == [[2.0] * 3] * 2
    assert not ctx.cloned and not ctx.original  # cleared on exit


def test_allow_mutation_on_saved_tensors_clones_through_views():
    with graph.allow_mutation_on_saved_tensors():
        a = ag.tensor([[0.5, 1., 2.]], requires_grad=True)
        c = a.clone()
        v = c[0]
        out = (v * v).sum()
        c.mul_(10)  # writes v's storage: v's saved value is cloned first
        out.backward()
    assert a.grad.tolist() == [[1.0, 2.0, 4.0]]


def test_allow_mutation_on_saved_tensors_errors():
    with graph.allow_mutation_on_saved_tensors():
        a = ag.ones(2, requires_grad=True)
        b = a.clone()
        out = (b * b).sum()
        b.add_(1)
    with pytest.raises(AssertionError, match="outside of the 'allow_mutation_on_saved_tensors'"):
        out.backward()
    with pytest.raises(RuntimeError, match="cannot be nested"):
        with graph.allow_mutation_on_saved_tensors():
            with graph.allow_mutation_on_saved_tensors():
                pass
    with graph.allow_mutation_on_saved_tensors():  # usable again afterwards
        pass


def test_allow_mutation_on_saved_tensors_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    grads = []
    for lib in (ag, torch):
        with lib.autograd.graph.allow_mutation_on_saved_tensors():
            a = lib.tensor([[0.5, -1.0, 2.0]], dtype=lib.float64, requires_grad=True)
            b = a.clone()
            out = (b.exp() * b).sum()
            b.mul_(3)
            b.add_(1)
            out.backward()
        grads.append(a.grad.tolist()[0])
    assert grads[0] == pytest.approx(grads[1], rel=1e-14)


def test_removable_handle_takes_pytorchs_keywords():
    hooks, extra = collections.OrderedDict(), collections.OrderedDict()
    handle = graph.RemovableHandle(hooks_dict=hooks, extra_dict=extra)
    hooks[handle.id] = extra[handle.id] = print
    handle.remove()
    assert not hooks and not extra
    several = [collections.OrderedDict(), collections.OrderedDict()]
    with graph.RemovableHandle(hooks, extra_dict=several) as handle:
        for d in (hooks, *several):
            d[handle.id] = print
    assert not hooks and not any(several)


def test_stream_switches_and_module_names():
    graph.set_warn_on_accumulate_grad_stream_mismatch(False)
    graph.set_warn_on_accumulate_grad_stream_mismatch(True)
    graph.set_override_stale_capture_stream(False)
    assert graph.Variable is ag.autograd.Variable
    assert graph.log.name == "arraygrad.autograd.graph"
