"""matplotlib's plotting functions on CPU tensors draw what they draw for PyTorch's tensors: the
artists' data (line coordinates, scatter offsets and colours, histogram counts and edges, image
arrays, bar heights) compared between the two, on the Agg backend. ``plt.plot(t)`` raised before
(matplotlib ``copy.copy``s its data), and a 2-d tensor's columns were histogrammed as rows."""

from __future__ import annotations

import numpy as np
import pytest

import arraygrad as ag

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from torch_numpy import QUIET_PYTORCH_ARRAY_PROTOCOL, needs_torch, torch  # noqa: E402

pytestmark = QUIET_PYTORCH_ARRAY_PROTOCOL

# small integers: the two libraries' float32 arithmetic agree exactly on them


def _line(ax, lib):
    x = lib.arange(5.0)
    (line,) = ax.plot(x, x * x)
    lines = ax.plot(lib.arange(12.0).reshape(6, 2))  # one line per column
    return [line.get_xdata(), line.get_ydata(), *[l.get_ydata() for l in lines]]


def _scatter(ax, lib):
    x = lib.arange(5.0)
    sc = ax.scatter(x, 2 * x, c=x, s=lib.full((5,), 3.0))
    return [sc.get_offsets(), sc.get_array(), sc.get_sizes()]


def _hist(ax, lib):
    counts, edges, _ = ax.hist(lib.tensor([0.0, 1.0, 1.0, 2.0, 5.0, 9.0]), bins=3)
    counts2, edges2, _ = ax.hist(lib.arange(12.0).reshape(6, 2), bins=4)  # per column
    return [counts, edges, counts2, edges2]


def _imshow(ax, lib):
    return [ax.imshow(lib.arange(6.0).reshape(2, 3)).get_array(),
            ax.imshow(lib.arange(24.0).reshape(2, 4, 3) / 24).get_array()]


def _bar(ax, lib):
    bars = ax.bar(lib.arange(3), lib.tensor([1.0, 2.0, 3.0]))
    return [[b.get_height() for b in bars], [b.get_x() for b in bars]]


def _others(ax, lib):
    x = lib.arange(4.0)
    ax.errorbar(x, x, yerr=lib.ones(4) / 4)
    ax.fill_between(x, x, 0)
    ax.axhline(lib.tensor(0.5))
    ax.set_xlim(lib.tensor(0.0), lib.tensor(3.0))
    box = ax.boxplot(lib.arange(12.0).reshape(6, 2))
    (step,) = ax.step(x, x)
    return [ax.get_xlim(), [m.get_ydata() for m in box["medians"]], step.get_ydata()]


PLOTS = [_line, _scatter, _hist, _imshow, _bar, _others]


def _draw(plot, lib):
    fig, ax = plt.subplots()
    try:
        data = plot(ax, lib)
        fig.canvas.draw()
    finally:
        plt.close(fig)
    return data


@needs_torch
@pytest.mark.parametrize("plot", PLOTS, ids=lambda f: f.__name__.strip("_"))
def test_artists_hold_what_they_hold_for_pytorch(plot):
    ours, theirs = _draw(plot, ag), _draw(plot, torch)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        assert a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("plot", PLOTS, ids=lambda f: f.__name__.strip("_"))
def test_plots_draw_without_pytorch(plot):
    data = _draw(plot, ag)
    assert all(np.asarray(d, dtype=float).size for d in data)


def test_a_tensor_that_requires_grad_is_refused_as_pytorch():
    fig, ax = plt.subplots()
    try:
        with pytest.raises(RuntimeError, match="Can't call numpy"):
            ax.plot(ag.ones(3, requires_grad=True))
            fig.canvas.draw()
        ax.plot(ag.ones(3, requires_grad=True).detach())
    finally:
        plt.close(fig)
