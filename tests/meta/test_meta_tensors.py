"""Meta tensors as PyTorch 2.13 has them: made by every factory, printed without values, with
strides, moved to (not from) the meta device, differentiated, and refusing what reads values
with PyTorch's error classes and messages."""

from __future__ import annotations

import pytest

import arraygrad as ag

torch = pytest.importorskip("torch")


def _both(src):
    """``src`` run with ``T`` as torch and as arraygrad: (torch's, ours) result or exception."""
    out = []
    for lib in (torch, ag):
        try:
            out.append(eval(src, {"T": lib, "M": lambda *s, **k: lib.randn(*s, device="meta", **k)}))
        except Exception as e:
            out.append(e)
    return out


FACTORIES = [
    'T.empty(2, 3, device="meta")', 'T.empty((), device="meta")', 'T.empty(0, device="meta")',
    'T.zeros(2, 3, device="meta", dtype=T.int64)', 'T.ones(4, device="meta", dtype=T.bool)',
    'T.full((2,), 7.0, device="meta", dtype=T.float64)', 'T.randn(2, 2, device="meta")',
    'T.rand(3, device="meta", requires_grad=True)', 'T.randint(0, 4, (3,), device="meta")',
    'T.randperm(5, device="meta")', 'T.arange(5, device="meta")',
    'T.linspace(0, 1, 7, device="meta")', 'T.eye(3, 4, device="meta", dtype=T.float16)',
    'T.tensor([1.0, 2.0], device="meta")', 'T.empty_like(M(2, 3))',
    'T.zeros_like(M(2, 3), dtype=T.int32)', 'T.rand_like(M(3))', 'M(2, 3).new_zeros(4)',
    'M(2, 3).new_tensor([1, 2])', 'T.ones(2).to("meta")', 'T.ones(2, requires_grad=True).to("meta")',
    'M(2, 3).to(T.float64)', 'M(2).requires_grad_() * 2', 'M(3).sum()',
]


@pytest.mark.parametrize("src", FACTORIES)
def test_factories_print_as_pytorchs(src):
    theirs, ours = _both(src)
    assert repr(ours).replace("arraygrad.", "torch.") == repr(theirs)
    assert ours.is_meta and ours.device.type == "meta" and ours.device.index is None


@pytest.mark.parametrize("src", ["M(2, 3).stride()", "M(2, 3).t().stride()",
                                 "M(2, 3, 4).permute(2, 0, 1).stride()",
                                 "M(4, 6)[1:, ::2].stride()", "M(2, 3).t().contiguous().stride()",
                                 "M(2, 3).t().is_contiguous()", "M(2, 3).expand(4, 2, 3).stride()"])
def test_strides_are_pytorchs(src):
    theirs, ours = _both(src)
    assert ours == theirs


def test_copies_go_in_not_out():
    m = ag.empty(3, device="meta")
    assert m.copy_(ag.ones(3)) is m  # into meta: nothing to write
    assert ag.ones(2, requires_grad=True).to("meta").grad_fn.name() == "ToCopyBackward0"


# what reads values: PyTorch's class, and its message where it is one PyTorch could say here
VALUE_READS = [
    ("M(()).item()", True), ("float(M(()))", True), ("bool(M(()))", True), ("int(M(()))", True),
    ("M(3).item()", True), ("M(3).tolist()", True), ("M(3).numpy()", True), ("M(3).cpu()", True),
    ('M(3).to("cpu")', True), ("T.ones(3).copy_(M(3))", True), ('format(M(()), ".2f")', True),
    ("M(3).nonzero()", True), ("T.argwhere(M(3))", True), ("M(3)[M(3) > 0]", True),
    ("M(3).repeat_interleave(T.ones(3, dtype=T.int64, device='meta'))", True),
    ("T.allclose(M(3), M(3))", True), ("T.unique(M(3))", False), ("T.equal(M(3), M(3))", False),
    ("T.bincount(T.zeros(3, dtype=T.int64, device='meta'))", False),
    ("T.masked_select(M(3), M(3) > 0)", False),
    ("T.nn.functional.one_hot(T.zeros(3, dtype=T.int64, device='meta'))", True),
]


@pytest.mark.parametrize("src, same_message", VALUE_READS)
def test_value_reads_raise_as_pytorch(src, same_message):
    theirs, ours = _both(src)
    assert isinstance(theirs, Exception) and type(ours) is type(theirs), (theirs, ours)
    if same_message:
        assert str(ours) == str(theirs)


@pytest.mark.parametrize("src", ["M(3) + T.ones(3)", "T.ones(3) * M(3)", "T.cat([M(2), T.ones(2)])",
                                 "T.cat([T.ones(2), M(2)])", "T.stack([M(2), T.ones(2)])",
                                 "T.where(M(3) > 0, M(3), T.ones(3))"])
def test_mixing_with_cpu_raises_pytorchs_error(src):
    theirs, ours = _both(src)
    assert type(ours) is type(theirs) is RuntimeError
    assert str(ours).split(": ", 1)[1] == str(theirs)  # ours names the op first


def test_autograd_gives_meta_gradients_of_the_inputs_shapes():
    w = ag.randn(4, 3, device="meta", requires_grad=True)
    b = ag.zeros(4, device="meta", requires_grad=True)
    x = ag.randn(5, 3, device="meta")
    loss = ag.nn.functional.cross_entropy(x @ w.t() + b, ag.zeros(5, dtype=ag.int64, device="meta"))
    loss.backward()
    assert w.grad.is_meta and w.grad.shape == w.shape and w.grad.dtype is ag.float32
    assert b.grad.is_meta and b.grad.shape == (4,)
    (g,) = ag.autograd.grad((w.tanh() ** 3).sum(), w, create_graph=True)
    (gg,) = ag.autograd.grad(g.sum(), w)
    assert g.grad_fn is not None and gg.is_meta and gg.shape == (4, 3)


def test_pytorch_gives_the_same_gradient_shapes():
    shapes = []
    for lib in (torch, ag):
        net = lib.nn.Sequential(lib.nn.Conv2d(2, 4, 3, device="meta"), lib.nn.ReLU(),
                                lib.nn.Flatten(), lib.nn.LazyLinear(5, device="meta"))
        out = net(lib.randn(2, 2, 6, 6, device="meta"))
        out.logsumexp(1).mean().backward()
        shapes.append([(tuple(p.grad.shape), p.grad.is_meta) for p in net.parameters()])
    assert shapes[0] == shapes[1]
