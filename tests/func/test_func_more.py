"""torch.func's rearrange (einops patterns), functionalize, debug_unwrap and
replace_all_batch_norm_modules_, against PyTorch."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.func import debug_unwrap, functionalize, rearrange, replace_all_batch_norm_modules_

X = np.random.default_rng(0).standard_normal((4, 6, 8, 3)).astype(np.float32)

PATTERNS = [
    ("b h w c -> b h w c", {}), ("b h w c -> (b h) w c", {}), ("b h w c -> h (b w) c", {}),
    ("b h w c -> b c h w", {}), ("b h w c -> b (c h w)", {}),
    ("b (h1 h) (w1 w) c -> (b h1 w1) h w c", dict(h1=2, w1=2)),
    ("b (h h1) (w w1) c -> b h w (c h1 w1)", dict(h1=2, w1=2)),
    ("... c -> c ...", {}), ("b ... c -> b c ...", {}), ("b h w c -> b 1 h w c", {}),
    ("b h w c -> b () h (w c)", {}), ("b (h k) w c -> k b h w c", dict(k=3)),
]


@pytest.mark.parametrize("pattern, lengths", PATTERNS, ids=[p for p, _ in PATTERNS])
def test_rearrange_matches_pytorch(pattern, lengths):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    ours = rearrange(ag.tensor(X), pattern, **lengths)
    theirs = torch.func.rearrange(torch.tensor(X), pattern, **lengths)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_rearrange_stacks_a_list_and_differentiates():
    a = ag.tensor([1.0, 2.0], requires_grad=True)
    b = ag.tensor([3.0, 4.0], requires_grad=True)
    out = rearrange([a, b], "n d -> d n")
    assert out.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    (out * ag.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
    assert a.grad.tolist() == [1.0, 3.0] and b.grad.tolist() == [2.0, 4.0]


@pytest.mark.parametrize("pattern, lengths", [
    ("a b c -> a b", {}), ("a b -> a b", {}), ("a (b c) d -> a b c d", {}),
    ("a b c -> (a a) b c", {}), ("a b c -> c b a", dict(a=3)), ("a b c d", {}),
])
def test_rearrange_refuses_what_pytorch_refuses(pattern, lengths):
    with pytest.raises(ValueError):
        rearrange(ag.randn(2, 12, 5), pattern, **lengths)


def _mutating(a, b):
    a.add_(b)
    v = a.view(-1)
    return v * 2, v


@pytest.mark.parametrize("remove", ["mutations", "mutations_and_views"])
def test_functionalize_keeps_the_semantics(remove):
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    results = []
    for lib, fz in ((ag, functionalize), (torch, torch.func.functionalize)):
        a, b = lib.ones(2, 2), lib.full((2, 2), 3.0)
        doubled, view = fz(_mutating, remove=remove)(a, b)
        results.append((a.tolist(), doubled.tolist(), view.tolist(), view._base is None))
    assert results[0] == results[1]


def test_functionalize_under_grad():
    def f(x):
        y = x.clone()
        y.mul_(x)
        return y.sum()

    x = ag.tensor([1.0, 2.0, 3.0])
    assert ag.func.grad(functionalize(f))(x).tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(RuntimeError, match="invalid argument for remove=views"):
        functionalize(f, remove="views")


def test_debug_unwrap_matches_pytorchs_shapes():
    torch = pytest.importorskip("torch", reason="compares with PyTorch")
    for recurse in (True, False):
        ours = ag.func.vmap(ag.func.vmap(lambda t: debug_unwrap(t, recurse=recurse)))(
            ag.randn(2, 3, 4))
        theirs = torch.func.vmap(torch.func.vmap(
            lambda t: torch.func.debug_unwrap(t, recurse=recurse)))(torch.randn(2, 3, 4))
        assert tuple(ours.shape) == tuple(theirs.shape)
    t = ag.ones(2)
    assert debug_unwrap(t) is t


def test_debug_unwrap_gives_the_batch():
    x = ag.arange(6.0).reshape(3, 2)
    seen = []
    ag.func.vmap(lambda r: seen.append(debug_unwrap(r)) or r)(x)
    assert seen[0].tolist() == x.tolist()


def test_replace_all_batch_norm_modules():
    model = ag.nn.Sequential(ag.nn.Linear(2, 3), ag.nn.BatchNorm1d(3), ag.nn.BatchNorm1d(3,
                             track_running_stats=False))
    assert replace_all_batch_norm_modules_(model) is model
    for bn in (model[1], model[2]):
        assert bn.running_mean is None and bn.running_var is None
        assert bn.num_batches_tracked is None and not bn.track_running_stats
    out = ag.func.vmap(model, in_dims=0)(ag.randn(5, 4, 2))  # no per-sample statistics written
    assert tuple(out.shape) == (5, 4, 3)
