"""``parametrizations.orthogonal``, ``nn.utils`` fusion / memory format / ``skip_init``,
``parametrize.transfer_parametrizations_and_params``, ``stateless.NamedMemberAccessor`` and
``rnn.bind``."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.autograd import gradcheck
from arraygrad.nn.utils import parametrizations, parametrize

CASES = [((4, 4), None, True), ((5, 3), None, True), ((3, 5), "householder", True),
         ((4, 4), "cayley", True), ((5, 3), "householder", False),
         ((3, 5), "householder", False), ((4, 4), "householder", False)]


@pytest.mark.parametrize("shape, orthogonal_map, trivial", CASES)
def test_orthogonal_matches_pytorch(shape, orthogonal_map, trivial):
    torch = pytest.importorskip("torch", reason="compares against PyTorch")
    theirs = torch.nn.Linear(shape[1], shape[0]).double()
    mine = nn.Linear(shape[1], shape[0]).double()
    mine.weight.data = ag.tensor(theirs.weight.detach().numpy())
    torch.nn.utils.parametrizations.orthogonal(theirs, orthogonal_map=orthogonal_map,
                                               use_trivialization=trivial)
    parametrizations.orthogonal(mine, orthogonal_map=orthogonal_map, use_trivialization=trivial)
    assert sorted(mine.state_dict()) == sorted(theirs.state_dict())
    w = mine.weight.detach().numpy()
    gram = w @ w.T if shape[0] < shape[1] else w.T @ w
    np.testing.assert_allclose(gram, np.eye(min(shape)), atol=1e-12)
    original = theirs.parametrizations.weight.original
    with torch.no_grad():
        original.add_(0.1 * torch.randn_like(original))
    mine.parametrizations.weight.original.data = ag.tensor(original.detach().numpy())
    if trivial:  # a non-square base is completed with random columns: take PyTorch's
        mine.parametrizations.weight[0].base = ag.tensor(
            theirs.parametrizations.weight[0].base.numpy())
    x = torch.randn(2, shape[1], dtype=torch.float64)
    theirs(x).sum().backward()
    mine(ag.tensor(x.numpy())).sum().backward()
    np.testing.assert_allclose(mine.weight.detach().numpy(), theirs.weight.detach().numpy(),
                               atol=1e-12)
    np.testing.assert_allclose(mine.parametrizations.weight.original.grad.numpy(),
                               original.grad.numpy(), atol=1e-10)


def test_orthogonal_gradcheck_and_errors():
    m = nn.Linear(3, 3).double()
    parametrizations.orthogonal(m, orthogonal_map="cayley")
    orth = m.parametrizations.weight[0]
    x = ag.randn(3, 3, dtype=ag.float64, requires_grad=True)
    assert gradcheck(orth, (x,))
    with pytest.raises(ValueError, match="Expected a matrix or batch of matrices"):
        parametrizations.orthogonal(nn.Linear(3, 3), "bias")
    with pytest.raises(ValueError, match="orthogonal_map has to be one of"):
        parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")
    n = nn.Linear(3, 3)
    parametrizations.orthogonal(n, orthogonal_map="matrix_exp", use_trivialization=False)
    with pytest.raises(NotImplementedError, match="not possible to assign"):
        n.weight = ag.eye(3)


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn_eval(transpose):
    conv = (nn.ConvTranspose2d(3, 4, 3) if transpose else nn.Conv2d(3, 4, 3)).eval()
    bn = nn.BatchNorm2d(4).eval()
    with ag.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
        bn.weight.uniform_(0.5, 2)
        bn.bias.uniform_(-1, 1)
    fused = nn.utils.fuse_conv_bn_eval(conv, bn, transpose=transpose)
    x = ag.randn(2, 3, 6, 6)
    assert ag.allclose(fused(x), bn(conv(x)), atol=1e-5)
    assert isinstance(fused.weight, nn.Parameter) and fused is not conv
    with pytest.raises(AssertionError, match="Fusion only for eval"):
        nn.utils.fuse_conv_bn_eval(conv.train(), bn)


def test_fuse_linear_bn_eval():
    linear, bn = nn.Linear(3, 4).eval(), nn.BatchNorm1d(4).eval()
    with ag.no_grad():
        bn.running_mean.uniform_(-1, 1)
        bn.running_var.uniform_(0.5, 2)
    x = ag.randn(5, 3)
    assert ag.allclose(nn.utils.fuse_linear_bn_eval(linear, bn)(x), bn(linear(x)), atol=1e-5)


def test_memory_format_and_skip_init():
    model = nn.Sequential(nn.Conv2d(2, 3, 3), nn.Sequential(nn.Conv3d(3, 2, 1)))
    before = model[0].weight.detach().clone()
    assert nn.utils.convert_conv2d_weight_memory_format(model, "channels_last") is model
    assert nn.utils.convert_conv3d_weight_memory_format(model, "channels_last_3d") is model
    assert ag.equal(model[0].weight, before)
    m = nn.utils.skip_init(nn.Linear, 5, 1)
    assert tuple(m.weight.shape) == (1, 5)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        nn.utils.skip_init(int, 3)


def test_transfer_parametrizations_and_params():
    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

    a, b = nn.Linear(3, 3), nn.Linear(3, 3)
    parametrize.register_parametrization(a, "weight", Symmetric())
    parametrize.transfer_parametrizations_and_params(a, b)
    assert parametrize.is_parametrized(b, "weight")
    assert b.parametrizations.weight.original is a.parametrizations.weight.original
    assert ag.equal(a.weight, b.weight)
    c = nn.Module()
    parametrize.transfer_parametrizations_and_params(a, c, "weight")
    assert list(c.state_dict()) == ["parametrizations.weight.original"]
    assert not parametrize.is_traceable_wrapper_subclass(ag.ones(1))
    assert parametrize.get_swap_module_params_on_conversion() is False


def test_named_member_accessor():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    acc = nn.utils.stateless.NamedMemberAccessor(model)
    assert acc.get_submodule("0") is model[0]
    new = ag.zeros(3)
    old = acc.swap_tensor("0.bias", new)
    assert model[0].bias is new and acc.get_tensor("0.bias") is new
    acc.set_tensors(["0.bias"], [old])
    assert model[0].bias is old
    assert acc.check_keys(["0.weight", "extra"]) == (["0.bias"], ["extra"])
    with pytest.raises(AttributeError, match="Linear has no attribute `missing`"):
        acc.swap_tensor("0.missing", new)
    with pytest.raises(RuntimeError, match="Missing key"):
        acc.swap_tensors_dict({"0.missing": new})
    assert not hasattr(model[0], "missing")


def test_rnn_bind():
    assert nn.utils.rnn.bind(None, abs) is None and nn.utils.rnn.bind(-2, abs) == 2
    decorated = nn.utils.rnn.copy_method_params(nn.Linear.forward)(len)
    assert decorated is len
