"""Shape, transfer and in-place ops as rules (issue #11): PyTorch's node names and saved
attributes, gradients cast back per input, device moves as ``ToCopyBackward0``, and the
optimizers' in-place fast path switched off with the others."""

import warnings

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.ops import fast
from arraygrad.ops.rule import reference_mode, rules

F64 = ag.float64


def _x():
    return ag.tensor(np.arange(6.0).reshape(2, 3), dtype=F64, requires_grad=True)


SHAPE_OPS = {
    "reshape": lambda m, x: x.reshape(3, 2),
    "view": lambda m, x: x.view(6),
    "flatten": lambda m, x: x.flatten(),
    "unsqueeze": lambda m, x: x.unsqueeze(1),
    "permute": lambda m, x: x.permute(1, 0),
    "transpose": lambda m, x: x.transpose(0, 1),
    "expand": lambda m, x: x.unsqueeze(0).expand(4, 2, 3),
    "repeat": lambda m, x: x.repeat(2, 3),
    "flip": lambda m, x: x.flip(0),
    "cat": lambda m, x: m.cat([x, x], 1),
    "stack": lambda m, x: m.stack([x, x], 1),
    "split": lambda m, x: x.split(1)[1],
    "split_with_sizes": lambda m, x: x.split([1, 2], 1)[1],
    "unbind": lambda m, x: x.unbind(1)[2],
}


@pytest.mark.parametrize("op", sorted(SHAPE_OPS))
def test_shape_ops_record_pytorchs_node_and_saved_values(op):
    torch = pytest.importorskip("torch")
    ours = SHAPE_OPS[op](ag, _x()).grad_fn
    theirs = SHAPE_OPS[op](torch, torch.arange(6.0, dtype=torch.float64).reshape(2, 3)
                           .requires_grad_()).grad_fn
    assert ours.name() == type(theirs).__name__
    for attr in (a for a in dir(theirs) if a.startswith("_saved_")):
        mine, ref = getattr(ours, attr), getattr(theirs, attr)
        assert tuple(mine) == tuple(ref) if isinstance(ref, (tuple, list)) else mine == ref, attr
    assert ours.name() in rules()


@pytest.mark.parametrize("op", sorted(SHAPE_OPS))
def test_shape_op_gradients_match_pytorch(op):
    torch = pytest.importorskip("torch")
    x = _x()
    y = SHAPE_OPS[op](ag, x)
    w = np.random.default_rng(0).standard_normal(tuple(y.shape))
    (y * ag.tensor(w, dtype=F64)).sum().backward()
    tx = torch.arange(6.0, dtype=torch.float64).reshape(2, 3).requires_grad_()
    (SHAPE_OPS[op](torch, tx) * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(np.asarray(x.grad.tolist()), tx.grad.numpy())


@pytest.mark.parametrize("join", ["cat", "stack"])
def test_joined_inputs_get_gradients_in_their_own_dtype(join):
    a = ag.ones(2, 3, dtype=F64, requires_grad=True)
    b = ag.ones(2, 3, dtype=ag.float32, requires_grad=True)
    c = ag.ones(2, 3, dtype=ag.float32)  # needs no gradient: no edge
    out = getattr(ag, join)([a, c, b], 0)
    assert out.dtype == F64
    assert out.grad_fn.next_functions[1] == (None, 0)
    (out * 2).sum().backward()
    assert a.grad.dtype == F64 and b.grad.dtype == ag.float32
    assert a.grad.tolist() == b.grad.tolist() == [[2.0] * 3] * 2


def test_split_gradient_with_one_output_used_and_second_order():
    x = _x()
    parts = x.split(1, 1)
    (g,) = ag.autograd.grad((parts[1] ** 3).sum(), x, create_graph=True)
    assert g.tolist() == [[0.0, 3.0, 0.0], [0.0, 48.0, 0.0]]
    (gg,) = ag.autograd.grad(g.sum(), x)
    assert gg.tolist() == [[0.0, 6.0, 0.0], [0.0, 24.0, 0.0]]


def _strict():
    if "strict" not in {b.name for b in ag.backends.available() if b.available}:
        pytest.skip("array-api-strict backend not installed")
    return "strict"


def test_device_move_records_to_copy_backward_and_moves_the_gradient_back():
    dev = _strict()
    x = ag.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no cross-library dtype comparison in the recorder
        y = x.to(dev)
        z = y.cpu()
    assert y.grad_fn.name() == "ToCopyBackward0"  # PyTorch's node for a device move
    assert z.grad_fn.name() == "ToCopyBackward0"
    assert y.grad_fn.next_functions == ((x.grad_fn or x._gradient_edge()[0], 0),)
    (z * z).sum().backward()
    assert x.grad.device.type == "cpu" and x.grad.dtype == F64
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_move_with_a_dtype_is_one_node_and_casts_the_gradient_back():
    dev = _strict()
    x = ag.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    y = x.to(dev, ag.float32)
    assert (y.device.type, y.dtype) == (dev, ag.float32)
    assert y.grad_fn.name() == "ToCopyBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    (g,) = ag.autograd.grad((y ** 3).sum(), x, create_graph=True)
    assert g.device.type == "cpu" and g.dtype == F64
    assert g.tolist() == [3.0, 12.0, 27.0]
    (gg,) = ag.autograd.grad(g.sum(), x)
    assert gg.tolist() == [6.0, 12.0, 18.0]


def test_cpu_to_cpu_records_nothing():
    x = _x()
    assert x.to("cpu") is x and x.cpu() is x
    assert x.to("cpu", F64) is x


def test_copy_and_fill_sources_get_summed_and_cast_gradients():
    torch = pytest.importorskip("torch")
    base = ag.zeros(2, 3, dtype=F64, requires_grad=True)
    src = ag.tensor([1.0, 2.0, 3.0], dtype=ag.float32, requires_grad=True)
    y = base.clone()
    y.copy_(src)
    assert y.grad_fn.name() == "CopyBackwards"
    assert y.grad_fn.next_functions[0][0].name() == "CloneBackward0"
    v = ag.tensor(5.0, dtype=ag.float32, requires_grad=True)
    w = base.clone()
    w.fill_(v)
    assert w.grad_fn.name() == "FillBackward0"
    (y * 2 + w * 3).sum().backward()
    assert src.grad.dtype == ag.float32 and src.grad.tolist() == [4.0, 4.0, 4.0]
    assert v.grad.dtype == ag.float32 and v.grad.tolist() == 18.0
    assert base.grad.tolist() == [[0.0] * 3] * 2
    tb = torch.zeros(2, 3, dtype=torch.float64, requires_grad=True)
    ts = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ty = tb.clone()
    ty.copy_(ts)
    assert type(ty.grad_fn).__name__ == "CopyBackwards"


def test_inplace_add_rebases_onto_add_backward_and_checks_versions():
    x = _x()
    y = x * 1
    s = y ** 2  # saves y
    y.add_(1)
    assert y.grad_fn.name() == "AddBackward0"
    assert y._version == 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


def test_native_inplace_arithmetic_is_a_fast_path():
    from arraygrad.ops.inplace import native_arithmetic

    p = ag.ones(3, dtype=F64)
    with reference_mode():
        assert fast.inplace_arithmetic(p, "add_", 1.0) is None
        assert native_arithmetic(p, "add_", 1.0) is False
        with ag.no_grad():
            p.add_(ag.ones(3, dtype=F64), alpha=-0.5)  # the general mechanism instead
    assert p.tolist() == [0.5] * 3 and p._version == 1
    with reference_mode(False):
        assert native_arithmetic(p, "add_", 1.0) is True
    assert p.tolist() == [1.5] * 3 and p._version == 2
