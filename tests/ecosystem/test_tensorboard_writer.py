"""``arraygrad.utils.tensorboard``: event files written through ``tensorboard`` read back the
same as PyTorch's ``SummaryWriter`` writes them (skipped without tensorboard); without it,
naming the writer raises the ImportError PyTorch's import raises."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

import arraygrad as ag

try:
    import torch
except ImportError:
    torch = None


def _write_and_read(lib, directory):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    tb = __import__(lib.__name__ + ".utils.tensorboard", fromlist=["SummaryWriter"])
    with tb.SummaryWriter(str(directory), filename_suffix=".x") as w:
        for s in range(3):
            w.add_scalar("loss", 1.0 / (s + 1), s)
        w.add_scalar("new", lib.tensor(2.5), 0, new_style=True)
        w.add_scalars("run", {"a": 1.0, "b": lib.tensor(2.0)}, 0)
        w.add_histogram("h", lib.arange(100.0).reshape(10, 10) / 7 - 3, 0)
        w.add_histogram("h2", lib.arange(10.0), 1, bins=4)
        w.add_histogram("h3", lib.arange(50.0), 2, max_bins=7)
        w.add_histogram_raw("raw", 0.0, 2.0, 3, 3.0, 5.0, [1.0, 2.0], [1, 2], 0)
        w.add_image("img", lib.arange(24.0).reshape(2, 3, 4) / 24, 0)
        w.add_image("gray", lib.arange(6.0).reshape(2, 3) / 6, 0, dataformats="HW")
        w.add_images("imgs", lib.ones(3, 1, 2, 2) * 0.5, 0)
        w.add_text("t", "hello *world*", 0)
        w.add_hparams({"lr": 0.1, "opt": "sgd", "bn": True}, {"acc": 0.9}, run_name="hp")
    ea = EventAccumulator(str(directory), size_guidance={"histograms": 0, "images": 0,
                                                         "tensors": 0})
    ea.Reload()
    out = {"tags": {k: sorted(v) for k, v in ea.Tags().items() if isinstance(v, list)},
           "loss": [(e.step, e.value) for e in ea.Scalars("loss")],
           "new": [e.tensor_proto.float_val[0] for e in ea.Tensors("new")]}
    for tag in ("h", "h2", "h3", "raw"):
        h = ea.Histograms(tag)[0].histogram_value
        out[tag] = (h.min, h.max, h.num, h.sum, h.sum_squares, list(h.bucket_limit),
                    list(h.bucket))
    for tag in ("img", "gray", "imgs"):
        im = ea.Images(tag)[0]
        out[tag] = (im.width, im.height, _pixels(im.encoded_image_string))
    out["text"] = ea.Tensors("t/text_summary")[0].tensor_proto.string_val
    out["dirs"] = sorted(d for d in os.listdir(directory) if not d.startswith("events"))
    hp = EventAccumulator(os.path.join(directory, "hp"))
    hp.Reload()
    out["hp"] = (sorted(hp.Tags()["scalars"]), hp.Scalars("acc")[0].value,
                 sorted(hp.summary_metadata))
    return out


def _pixels(png):
    try:
        from PIL import Image
    except ImportError:
        return None
    image = Image.open(io.BytesIO(png))
    return image.mode, list(image.tobytes())


@pytest.mark.skipif(torch is None, reason="PyTorch is not installed")
def test_event_files_read_back_as_pytorchs(tmp_path):
    pytest.importorskip("tensorboard", reason="tensorboard is not installed")
    ours = _write_and_read(ag, tmp_path / "ours")
    theirs = _write_and_read(torch, tmp_path / "theirs")
    assert ours == theirs
    assert ours["loss"] == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]


def test_writer_checks(tmp_path):
    pytest.importorskip("tensorboard", reason="tensorboard is not installed")
    from arraygrad.utils.tensorboard import SummaryWriter

    w = SummaryWriter(str(tmp_path))
    assert w.get_logdir() == str(tmp_path)
    with pytest.raises(AssertionError, match="one element"):
        w.add_scalar("x", ag.ones(2))
    with pytest.raises(ValueError, match="bins='auto'"):
        w.add_histogram("x", ag.ones(3), bins="auto")
    with pytest.raises(ValueError, match="rescale"):
        from arraygrad.utils.tensorboard.summary import image
        image("x", ag.ones(3, 2, 2), rescale=2)
    with pytest.raises(TypeError, match="should be dictionary"):
        w.add_hparams([], {})
    w.close()
    w.close()  # twice is harmless


def test_bad_arguments_make_no_directory(tmp_path, monkeypatch):
    pytest.importorskip("tensorboard", reason="tensorboard is not installed")
    from arraygrad.utils.tensorboard import FileWriter, SummaryWriter

    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError, match="log_dir must be a path"):
        SummaryWriter(log_dir=object())
    with pytest.raises(TypeError, match="purge_step must be an int"):
        SummaryWriter(purge_step="x")
    with pytest.raises(TypeError, match="log_dir must be a path"):
        FileWriter(object())
    assert list(tmp_path.iterdir()) == []


def test_without_tensorboard_naming_the_writer_raises_import_error():
    code = ("import sys; sys.modules['tensorboard'] = None\n"
            "import arraygrad.utils.tensorboard as tb\n"
            "try:\n    tb.SummaryWriter\nexcept ImportError as e:\n    print('ImportError', e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.startswith("ImportError"), out.stderr
