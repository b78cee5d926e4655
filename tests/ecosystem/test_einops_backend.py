"""einops on arraygrad tensors: ``rearrange``, ``reduce``, ``repeat``, ``einsum``, ``pack``,
``unpack``, ``parse_shape`` and ``asnumpy`` give what they give on PyTorch's tensors, with
gradients (gradcheck), and the backend registers whichever of einops and arraygrad is imported
first, without arraygrad importing einops. einops refused arraygrad tensors before."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import arraygrad as ag
from arraygrad.autograd import gradcheck

einops = pytest.importorskip("einops")

try:
    import torch
except ImportError:
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is not installed")

X = np.random.default_rng(0).standard_normal((2, 3, 4, 6))

# name -> einops call on one tensor (or a list) of X's shape
CALLS = {
    "rearrange flatten": lambda x: einops.rearrange(x, "b c h w -> b (c h w)"),
    "rearrange transpose": lambda x: einops.rearrange(x, "b c h w -> w b h c"),
    "rearrange split": lambda x: einops.rearrange(x, "b c h (w2 w) -> b (c w2) h w", w2=2),
    "rearrange list": lambda x: einops.rearrange([x[0], x[1]], "n c h w -> c (n h) w"),
    "reduce mean": lambda x: einops.reduce(x, "b c h w -> b c", "mean"),
    "reduce max": lambda x: einops.reduce(x, "b c h w -> b h", "max"),
    "reduce min": lambda x: einops.reduce(x, "b c h w -> c", "min"),
    "reduce sum": lambda x: einops.reduce(x, "b c h w -> b 1 h w", "sum"),
    "reduce prod": lambda x: einops.reduce(x, "b c h w -> b c", "prod"),
    "reduce pool": lambda x: einops.reduce(x, "b c (h h2) (w w2) -> b c h w", "mean", h2=2, w2=2),
    "repeat new axis": lambda x: einops.repeat(x, "b c h w -> b c h w n", n=3),
    "repeat tile": lambda x: einops.repeat(x, "b c h w -> b c (2 h) (w 3)"),
    "einsum": lambda x: einops.einsum(x, x, "b c h w, b c h v -> b w v"),
    "pack": lambda x: einops.pack([x, x[:, 0]], "b * w")[0],
    "unpack": lambda x: einops.unpack(einops.rearrange(x, "b c h w -> b (c h) w"),
                                      [(x.shape[1], x.shape[2] - 1), (x.shape[1],)], "b * w")[0],
}


@needs_torch
@pytest.mark.parametrize("name", list(CALLS))
def test_values_and_gradients_as_on_pytorch(name):
    call = CALLS[name]
    ours_x = ag.tensor(X, requires_grad=True)
    theirs_x = torch.tensor(X, requires_grad=True)
    ours, theirs = call(ours_x), call(theirs_x)
    assert isinstance(ours, ag.Tensor) and tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    weights = np.random.default_rng(1).standard_normal(tuple(theirs.shape))
    (ours * ag.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(ours_x.grad.numpy(), theirs_x.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("name", list(CALLS))
def test_gradcheck(name):
    x = ag.tensor(X[:, :, :2, :4], dtype=ag.float64, requires_grad=True)  # small: quick
    assert gradcheck(CALLS[name], (x,))


def test_integer_tensors_and_helpers():
    x = ag.arange(24).reshape(2, 3, 4)
    expected = np.arange(24).reshape(2, 3, 4).transpose(2, 1, 0)
    assert einops.rearrange(x, "a b c -> c b a").tolist() == expected.tolist()
    assert einops.reduce(x, "a b c -> a", "max").tolist() == [11, 23]
    with pytest.raises(NotImplementedError, match="non-floating"):
        einops.reduce(x, "a b c -> a", "mean")  # einops refuses to average integers
    assert einops.parse_shape(x, "a b _") == {"a": 2, "b": 3}
    array = einops.asnumpy(ag.ones(2, requires_grad=True))
    assert isinstance(array, np.ndarray) and array.tolist() == [1.0, 1.0]
    assert einops.reduce(ag.tensor([[True, False]]), "a b -> a", "any").tolist() == [True]


def test_backend_registered_by_class():
    from einops._backends import get_backend

    backend = get_backend(ag.ones(1))
    assert backend.framework_name == "arraygrad" and type(backend).__name__ == "ArraygradBackend"
    with pytest.raises(NotImplementedError):
        backend.layers()


def _run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)


def test_arraygrad_does_not_import_einops():
    proc = _run("import sys, arraygrad as ag; print('einops' in sys.modules);"
                "import einops; print(einops.rearrange(ag.ones(2, 3), 'a b -> b a').shape)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:2] == ["False", "arraygrad.Size([3, 2])"]


def test_einops_imported_first():
    proc = _run("import einops, arraygrad as ag;"
                "print(einops.rearrange(ag.ones(2, 3), 'a b -> (b a)').shape)")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "arraygrad.Size([6])"


def test_import_hook_takes_itself_off():
    proc = _run("import sys, arraygrad, einops;"
                "print(sum(type(f).__name__ == '_EinopsFinder' for f in sys.meta_path))")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0"
