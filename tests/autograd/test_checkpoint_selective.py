"""``torch.utils.checkpoint``'s selective checkpointing (CheckpointPolicy,
create_selective_checkpoint_contexts, SelectiveCheckpointContext) and its other names
(set_checkpoint_early_stop, set_checkpoint_debug_enabled, GraphExecGroup, detach_variable,
DefaultDeviceType, get/set_device_states, tree_map, SavedTensor)."""

import functools

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.utils import checkpoint as C


def _fn(x, y):
    return ag.sigmoid(ag.matmul(ag.matmul(x, y), y)) * y


def _inputs():
    ag.manual_seed(0)
    return ag.rand(6, 6, requires_grad=True), ag.rand(6, 6, requires_grad=True)


def _grads(fn, context_fn=None):
    x, y = _inputs()
    if context_fn is None:
        out = fn(x, y)
    else:
        out = C.checkpoint(fn, x, y, use_reentrant=False, context_fn=context_fn)
    out.sum().backward()
    return x.grad.numpy(), y.grad.numpy()


def _sac(policy, **kwargs):
    return functools.partial(C.create_selective_checkpoint_contexts, policy, **kwargs)


@pytest.fixture
def matmul_calls(monkeypatch):
    """Counts the calls of ``arraygrad.matmul`` (the policy sees this function as the op)."""
    calls = []
    real = ag.matmul

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(ag, "matmul", counting)
    return calls


POLICIES = {
    "save-matmul": lambda ctx, op, *a, **k: (C.CheckpointPolicy.MUST_SAVE if op is ag.matmul
                                             else C.CheckpointPolicy.PREFER_RECOMPUTE),
    "save-all": lambda ctx, op, *a, **k: C.CheckpointPolicy.PREFER_SAVE,
    "recompute-all": lambda ctx, op, *a, **k: C.CheckpointPolicy.MUST_RECOMPUTE,
    "bool": lambda ctx, op, *a, **k: op is ag.sigmoid,
}


@pytest.mark.parametrize("name", list(POLICIES))
def test_gradients_are_those_of_the_function(name):
    expected = _grads(_fn)
    for ours, exp in zip(_grads(_fn, _sac(POLICIES[name])), expected):
        np.testing.assert_allclose(ours, exp, rtol=1e-6, atol=1e-7)


def test_saved_ops_are_not_recomputed(matmul_calls):
    for ops, recomputed in (([ag.matmul], 0), ([], 2)):
        matmul_calls.clear()
        x, y = _inputs()
        out = C.checkpoint(_fn, x, y, use_reentrant=False, context_fn=_sac(ops))
        assert len(matmul_calls) == 2
        out.sum().backward()
        assert len(matmul_calls) - 2 == recomputed


def test_the_policy_sees_each_op_once_in_the_forward_with_its_output():
    seen = []

    def policy(ctx, op, *args, **kwargs):
        seen.append((op.__name__, ctx.is_recompute, tuple(ctx.op_output.shape),
                     len(args)))
        return C.CheckpointPolicy.PREFER_RECOMPUTE

    x, y = _inputs()
    out = C.checkpoint(lambda a, b: (a @ b).relu().sum(), x, y, use_reentrant=False,
                       context_fn=_sac(policy))
    out.backward()
    assert seen == [("matmul", False, (6, 6), 2), ("relu", False, (6, 6), 1),
                    ("sum", False, (), 1)]


def test_a_mutated_cached_result_is_refused_unless_allowed():
    def fn(x, y):
        h = ag.matmul(x, y)
        out = (h * y).sum()
        return out, h

    for allow in (False, True):
        x, y = _inputs()
        out, h = C.checkpoint(fn, x, y, use_reentrant=False,
                              context_fn=_sac([ag.matmul], allow_cache_entry_mutation=allow))
        with ag.no_grad():
            h.add_(1)  # the cached result shares h's storage and version counter
        if allow:
            out.backward()
        else:
            with pytest.raises(RuntimeError, match="cached during selective activation "
                                                   "checkpoint has been mutated"):
                out.backward()


def test_policy_arguments_are_checked():
    with pytest.raises(ValueError, match="Expected op in `op_list`"):
        C.create_selective_checkpoint_contexts([3])
    with pytest.raises(TypeError, match="either a function or a list of ops"):
        C.create_selective_checkpoint_contexts(3)


def test_no_op_stays_wrapped_after_the_checkpoint():
    before = (ag.matmul, ag.Tensor.__dict__["__matmul__"], ag.Tensor.__dict__["sigmoid"])
    x, y = _inputs()
    C.checkpoint(_fn, x, y, use_reentrant=False, context_fn=_sac([ag.matmul])).sum().backward()
    assert (ag.matmul, ag.Tensor.__dict__["__matmul__"], ag.Tensor.__dict__["sigmoid"]) == before


def test_policy_enum_matches_pytorch():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    from torch.utils import checkpoint as TC

    assert {m.name: m.value for m in C.CheckpointPolicy} == \
        {m.name: m.value for m in TC.CheckpointPolicy}


def test_early_stop():
    ran = []

    def fn(x):
        y = x.exp()
        ran.append("after exp")  # nothing after exp's save is needed by backward
        return y * 2

    x = ag.ones(2, requires_grad=True)
    C.checkpoint(fn, x, use_reentrant=False).sum().backward()
    assert ran == ["after exp"]  # the recomputation stopped at exp
    ran.clear()
    with C.set_checkpoint_early_stop(False):
        out = C.checkpoint(fn, x, use_reentrant=False)
    out.sum().backward()  # the switch is read by the forward
    assert ran == ["after exp", "after exp"]


def test_debug_lists_the_operations():
    calls = []

    def fn(t):
        calls.append(1)
        return t.exp().exp() if len(calls) == 1 else t.exp()

    x = ag.ones(2, requires_grad=True)
    with C.set_checkpoint_debug_enabled(True):
        y = C.checkpoint(fn, x, use_reentrant=False)
    with pytest.raises(C.CheckpointError) as info:
        y.sum().backward()
    text = str(info.value)
    assert "Operations executed during the original forward:\n\nexp([[2]])\nexp([[2]])" in text
    assert "Operations executed during recomputation:\n\nexp([[2]])" in text
    assert "test_checkpoint_selective.py" in text  # the stacks
    with pytest.raises(ValueError, match="debug=True is incompatible with non-default"):
        C.checkpoint(fn, x, use_reentrant=False, debug=True, context_fn=_sac([]))


def test_graph_exec_group():
    with C.GraphExecGroup() as group:
        assert C.GraphExecGroup._get_current_group() is group
        with pytest.raises(RuntimeError, match="cannot be nested"):
            with C.GraphExecGroup():
                pass
    assert C.GraphExecGroup._get_current_group() is None


def test_checkpointed_regions_are_recomputed_once_across_backward_calls():
    runs = []

    def fn(x):
        runs.append(1)
        return x.exp(), x.sin()

    x = ag.ones(3, requires_grad=True)
    with C.GraphExecGroup():
        a, b = C.checkpoint(fn, x, use_reentrant=False)
        (ga,) = ag.autograd.grad(a.sum(), x)
        (gb,) = ag.autograd.grad(b.sum(), x)
    assert len(runs) == 2  # the forward, and one recomputation for both
    np.testing.assert_allclose(ga.numpy(), np.exp(np.ones(3)), rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), np.cos(np.ones(3)), rtol=1e-6)


def test_small_helpers():
    x = ag.ones(2, requires_grad=True)
    d = C.detach_variable((x, 3))
    assert d[0] is not x and d[0].requires_grad and d[0].is_leaf and d[1] == 3
    with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
        C.detach_variable([x])
    assert C.get_device_states(x, [x]) == ([], [])  # CPU tensors have no device state
    C.set_device_states([], [])
    assert C.DefaultDeviceType.get_device_type() in ("cpu", "cuda")
    before = C.DefaultDeviceType._default_device_type
    C.DefaultDeviceType.set_device_type("cuda")
    assert C.DefaultDeviceType.get_device_type() == "cuda"
    C.DefaultDeviceType._default_device_type = before
    assert C.tree_map(lambda a, b: a + b, {"k": (1, 2)}, {"k": (10, 20)}) == {"k": (11, 22)}
    assert C.tree_map(len, [[1, 2], [3]], is_leaf=lambda n: isinstance(n, list) and
                      not any(isinstance(i, list) for i in n)) == [2, 1]
    assert C.SavedTensor is ag.autograd.SavedTensor
