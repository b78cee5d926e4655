"""The demo's network (``make demo``, examples/demo.py) trains on JAX and Dask to the NumPy
backend's accuracy: the same initial weights and batches, a shorter schedule."""

import importlib.util
import pathlib

import pytest

import arraygrad as ag
from arraygrad import nn

DEMO = pathlib.Path(__file__).resolve().parents[2] / "examples" / "demo.py"
EPOCHS, BATCH = 2, 64


def _demo():
    pytest.importorskip("sklearn", reason="the digits data set ships with scikit-learn")
    spec = importlib.util.spec_from_file_location("arraygrad_demo", DEMO)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _train(demo, device, start, data):
    (train_x, train_y), (test_x, test_y) = data
    model = demo.DigitNet()
    model.load_state_dict(start)
    model.to(device)
    optimizer = ag.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    ag.manual_seed(1)  # the dropout masks' stream
    for _ in range(EPOCHS):
        for i in range(0, len(train_y), BATCH):
            images, labels = train_x[i:i + BATCH].to(device), train_y[i:i + BATCH].to(device)
            loss = loss_fn(model(images), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return demo.accuracy(model, test_x.to(device), test_y.to(device))


@pytest.mark.backends  # minutes on Dask: make test-backends runs it
def test_the_demo_network_trains_to_numpys_accuracy(device):
    demo = _demo()
    ag.manual_seed(0)
    data = demo.digits(0)
    start = {k: v.clone() for k, v in demo.DigitNet().state_dict().items()}
    reference = _train(demo, "cpu", start, data)
    reached = _train(demo, device, start, data)
    assert reference > 0.85  # two epochs: well on the way to the demo's 97%
    assert abs(reached - reference) <= 0.03, (reached, reference)
