"""Seed 000: tensor hooks on an intermediate result (the nn.Module part belongs to nn)."""

import arraygrad as ag


def test_mean_of_doubled_input():
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 2
    z = ag.mean(y)
    assert repr(z) == "tensor(3., grad_fn=<MeanBackward0>)"
    z.backward()
    assert repr(x.grad) == "tensor([1., 1.])"


def test_register_hook_print_receives_gradient(capsys):
    x = ag.tensor([1., 2.], requires_grad=True)
    y = x * 2
    assert y.requires_grad is True
    handle = y.register_hook(print)
    assert "RemovableHandle" in repr(handle)
    z = ag.mean(y)
    z.backward()
    assert capsys.readouterr().out == "tensor([0.5000, 0.5000])\n"
