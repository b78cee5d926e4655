"""No leaks: after backward no saved array is reachable; hooks keep nothing alive."""

import gc
import weakref

import pytest

import arraygrad as ag
from arraygrad import nn

FAMILIES = {
    "elementwise": lambda x: (x.exp() * x.sigmoid() + x.tanh() / (x.abs() + 1)).sum(),
    "reduction": lambda x: x.var(1).sum() + x.logsumexp(1).sum() + x.max(1).values.sum()
    + x.prod(),
    "linalg": lambda x: (x @ x.T).sum() + x.mm(x.t()).sum() + x.matmul(x[0]).sum(),
    "shape": lambda x: (x.reshape(-1).flip(0)[::2] * x.t().reshape(-1)[::2]).sum(),
    "indexing": lambda x: (x[[0, 0, 1]] * x.gather(1, ag.tensor([[0], [1], [2]]))).sum(),
    "activation": lambda x: (x.softmax(1) * x.log_softmax(1)).sum(),
    "nn": lambda x: nn.functional.cross_entropy(nn.functional.linear(x, x), ag.tensor([0, 1, 2])),
    "conv": lambda x: nn.functional.conv2d(x.reshape(1, 1, 3, 3), x.reshape(1, 1, 3, 3),
                                           padding=1).sum(),
}


def _saved_arrays(root):
    """Weak references to every array the graph behind ``root`` saved."""
    from arraygrad.autograd.graph import SavedOutput, SavedTensor

    refs, stack, seen = [], [root.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        for s in node._saved:
            if isinstance(s, SavedOutput):
                refs.append(weakref.ref(s.data))
            elif isinstance(s, SavedTensor) and s.tensor._grad_fn is not None:
                refs.append(weakref.ref(s.tensor._data))
        stack.extend(f for f, _ in node.next_functions if f is not None)
    return refs


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_saved_arrays_unreachable_after_backward(family):
    x = ag.randn(3, 3, requires_grad=True)
    out = FAMILIES[family](x)
    refs = _saved_arrays(out)
    out.backward()
    del out
    gc.collect()
    alive = [r for r in refs if r() is not None]
    assert not alive, f"{len(alive)} of {len(refs)} saved arrays still alive"


def test_tensor_hooks_do_not_keep_tensors_alive():
    x = ag.randn(3, requires_grad=True)
    y = x * 2
    y.register_hook(lambda g: g * 1)
    x.register_hook(lambda g: g)
    y.sum().backward()
    refs = [weakref.ref(x), weakref.ref(y)]
    del x, y
    gc.collect()
    assert all(r() is None for r in refs)


def test_module_hooks_do_not_keep_tensors_alive():
    model = nn.Sequential(nn.Linear(3, 3), nn.ReLU())
    handles = [model.register_forward_hook(lambda m, i, o: None),
               model.register_full_backward_hook(lambda m, gi, go: None),
               model[0].register_forward_pre_hook(lambda m, i: None)]
    x = ag.randn(2, 3, requires_grad=True)
    out = model(x)
    out.sum().backward()
    refs = [weakref.ref(x), weakref.ref(out)]
    del x, out
    gc.collect()
    assert all(r() is None for r in refs)
    for h in handles:
        h.remove()
