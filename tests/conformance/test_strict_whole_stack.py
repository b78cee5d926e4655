"""The whole stack — nn layers, losses, optimizers, data, save/load — runs on the strict
Array API reference backend, and gives the NumPy backend's numbers."""

import numpy as np
import pytest

import arraygrad as ag
from arraygrad import nn
from arraygrad.utils.data import DataLoader, TensorDataset

pytestmark = pytest.mark.skipif(
    "strict" not in {b.name for b in ag.backends.available() if b.available},
    reason="array-api-strict backend not installed")


def _model():
    ag.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 4, 3, padding=1, groups=2), nn.AvgPool2d(2), nn.Flatten(),
        nn.Linear(4, 8), nn.LayerNorm(8), nn.GELU(), nn.Dropout(0.0), nn.Linear(8, 3))


@pytest.mark.parametrize("optim", ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"])
def test_training_on_strict_matches_numpy(optim, tmp_path):
    ag.manual_seed(1)
    x = ag.randn(16, 1, 4, 4)
    y = ag.randint(0, 3, (16,))
    losses = {}
    for device in ("cpu", "strict"):
        model = _model().to(device)
        kwargs = {"lr": 0.05, "momentum": 0.9} if optim == "SGD" else {"lr": 0.01}
        opt = getattr(ag.optim, optim)(model.parameters(), **kwargs)
        loader = DataLoader(TensorDataset(x.to(device), y.to(device)), batch_size=8,
                            shuffle=True, generator=ag.Generator().manual_seed(0))
        trace = []
        for _ in range(3):
            for xb, yb in loader:
                loss = nn.functional.cross_entropy(model(xb), yb, label_smoothing=0.1)
                opt.zero_grad()
                loss.backward()
                opt.step()
                trace.append(loss.item())
        losses[device] = trace
        path = tmp_path / f"{device}.safetensors"
        ag.save(model.state_dict(), path)
        reloaded = _model().to(device)
        reloaded.load_state_dict(ag.load(path, map_location=device))
        model.eval()
        reloaded.eval()
        with ag.no_grad():
            assert model(x.to(device)).tolist() == reloaded(x.to(device)).tolist()
    np.testing.assert_allclose(losses["strict"], losses["cpu"], rtol=1e-4, atol=1e-5)
    assert losses["strict"][-1] < losses["strict"][0]
