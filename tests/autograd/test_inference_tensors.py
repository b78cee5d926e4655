"""Inference tensors: ``torch.is_inference``, and PyTorch's refusal of an in-place update of
one outside ``inference_mode`` (issue 23, bug 5), raised before anything is written."""

import pytest

import arraygrad as ag

MESSAGE = "Inplace update to inference tensor outside InferenceMode is not allowed"


def _inference_tensor():
    with ag.inference_mode():
        return ag.ones(4)


@pytest.mark.parametrize("update", [
    lambda t: t.add_(1), lambda t: t.mul_(2), lambda t: t.zero_(), lambda t: t.fill_(3.0),
    lambda t: t.copy_(ag.zeros(4)), lambda t: t.__setitem__(0, 5.0),
    lambda t: t.view(2, 2).add_(1), lambda t: t[1:].sub_(1),
    lambda t: ag.add(ag.zeros(4), 1, out=t), lambda t: t.resize_(5),
], ids=["add_", "mul_", "zero_", "fill_", "copy_", "setitem", "view", "slice", "out=",
        "resize_"])
def test_inplace_update_outside_inference_mode_is_refused(update):
    t = _inference_tensor()
    with pytest.raises(RuntimeError, match=MESSAGE):
        update(t)
    assert t.tolist() == [1.0, 1.0, 1.0, 1.0]  # nothing written


def test_refused_under_no_grad_too():
    t = _inference_tensor()
    with ag.no_grad(), pytest.raises(RuntimeError, match=MESSAGE):
        t.add_(1)


def test_inplace_update_inside_inference_mode_is_allowed():
    t = _inference_tensor()
    with ag.inference_mode():
        t.add_(1)
        t[0] = 7.0
    assert t.tolist() == [7.0, 2.0, 2.0, 2.0]


def test_normal_tensor_inplace_anywhere():
    t = ag.ones(2)
    t.add_(1)
    with ag.inference_mode():
        t.add_(1)
    assert t.tolist() == [3.0, 3.0]


def test_optimizer_step_on_inference_parameters_is_refused():
    with ag.inference_mode():
        p = ag.ones(2)
    with pytest.raises(RuntimeError, match=MESSAGE):
        p.add_(ag.ones(2), alpha=-0.1)  # the optimizers' native in-place path


def test_is_inference():
    t = _inference_tensor()
    assert ag.is_inference(t) and t.is_inference()
    assert ag.is_inference(t.view(2, 2)) and ag.is_inference(t[1:])  # views of one
    assert not ag.is_inference(t + 1) and not ag.is_inference(t.clone())
    assert not ag.is_inference(ag.ones(2))
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        ag.is_inference(3)


def test_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    with torch.inference_mode():
        tt = torch.ones(4)
    t = _inference_tensor()
    for a, b in [(t, tt), (t.view(2, 2), tt.view(2, 2)), (t + 1, tt + 1)]:
        assert ag.is_inference(a) == torch.is_inference(b)
    with pytest.raises(RuntimeError) as theirs:
        tt.add_(1)
    with pytest.raises(RuntimeError) as ours:
        t.add_(1)
    assert str(ours.value) == str(theirs.value)
