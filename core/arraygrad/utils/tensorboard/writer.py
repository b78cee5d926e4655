"""``SummaryWriter`` and ``FileWriter``: TensorBoard event files written through the
``tensorboard`` package's ``EventFileWriter``, as PyTorch's ``torch.utils.tensorboard``."""

from __future__ import annotations

import os
import time
from typing import Any

import tensorboard

if not hasattr(tensorboard, "__version__") or tuple(
        int(p) for p in tensorboard.__version__.split(".")[:2] if p.isdigit()) < (1, 15):
    raise ImportError("TensorBoard logging requires TensorBoard version 1.15 or above")

from tensorboard.compat.proto import event_pb2  # noqa: E402
from tensorboard.compat.proto.event_pb2 import Event, SessionLog  # noqa: E402
from tensorboard.summary.writer.event_file_writer import EventFileWriter  # noqa: E402
from tensorboard.summary.writer.record_writer import RecordWriter  # noqa: E402

from arraygrad.utils.tensorboard import summary as _summary  # noqa: E402

__all__ = ["FileWriter", "RecordWriter", "SummaryWriter"]


class FileWriter:
    """Writes protocol buffers to an event file in ``log_dir`` (asynchronously, flushed every
    ``flush_secs`` seconds or ``max_queue`` events)."""

    def __init__(self, log_dir: Any, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        _check_options(log_dir, max_queue, flush_secs, filename_suffix)
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs,
                                            filename_suffix)

    def get_logdir(self) -> str:
        """The directory the event file is in."""
        return self.event_writer.get_logdir()

    def add_event(self, event: Any, step: int | None = None,
                  walltime: float | None = None) -> None:
        """Write an ``Event`` proto (time-stamped now unless ``walltime``)."""
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        self.event_writer.add_event(event)

    def add_summary(self, summary: Any, global_step: int | None = None,
                    walltime: float | None = None) -> None:
        """Write a ``Summary`` proto as an event."""
        self.add_event(event_pb2.Event(summary=summary), global_step, walltime)

    def flush(self) -> None:
        """Write pending events to disk."""
        self.event_writer.flush()

    def close(self) -> None:
        """Flush and close the event file."""
        self.event_writer.close()

    def reopen(self) -> None:
        """Reopen after ``close`` (a new event file in the same directory)."""
        self.event_writer.reopen()


def _check_options(log_dir: Any, max_queue: Any, flush_secs: Any, filename_suffix: Any,
                   comment: Any = "", purge_step: Any = None) -> None:
    """TypeError for an argument of the wrong type, before any directory is made."""
    if log_dir is not None and not isinstance(log_dir, (str, os.PathLike)):
        raise TypeError(f"log_dir must be a path (str or os.PathLike), got "
                        f"{type(log_dir).__name__}")
    for name, value, kind in (("max_queue", max_queue, int), ("flush_secs", flush_secs, int),
                              ("filename_suffix", filename_suffix, str),
                              ("comment", comment, str)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} must be {kind.__name__}, got {type(value).__name__}")
    if purge_step is not None and not isinstance(purge_step, int):
        raise TypeError(f"purge_step must be an int, got {type(purge_step).__name__}")


def _default_bins() -> list[float]:
    """TensorFlow's histogram buckets: +-1e-12 growing by 10% to 1e20, and 0."""
    v = 1e-12
    buckets: list[float] = []
    while v < 1e20:
        buckets.append(v)
        v *= 1.1
    return [-b for b in reversed(buckets)] + [0] + buckets


class SummaryWriter:
    """Log data for TensorBoard to event files in ``log_dir`` (default
    ``runs/<date>_<host><comment>``), as ``torch.utils.tensorboard.SummaryWriter``.

    Written: ``add_scalar``, ``add_scalars``, ``add_histogram``
    (and ``add_histogram_raw``), ``add_image``/``add_images``, ``add_text``, ``add_hparams``.
    ``purge_step`` makes TensorBoard discard events logged at or after that step by an earlier
    run of the same directory.
    """

    def __init__(self, log_dir: str | None = None, comment: str = "",
                 purge_step: int | None = None, max_queue: int = 10, flush_secs: int = 120,
                 filename_suffix: str = "") -> None:
        _check_options(log_dir or None, max_queue, flush_secs, filename_suffix, comment,
                       purge_step)
        if not log_dir:
            import socket
            from datetime import datetime

            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = log_dir
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer: FileWriter | None = None
        self.all_writers: dict[str, FileWriter] | None = None
        self._get_file_writer()
        self.default_bins = _default_bins()

    def _get_file_writer(self) -> FileWriter:
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs,
                                          self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
            if self.purge_step is not None:
                step = self.purge_step
                self.file_writer.add_event(Event(step=step, file_version="brain.Event:2"))
                self.file_writer.add_event(
                    Event(step=step, session_log=SessionLog(status=SessionLog.START)))
                self.purge_step = None
        return self.file_writer

    def get_logdir(self) -> str:
        """The directory the event files are written to."""
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value: Any, global_step: int | None = None,
                   walltime: float | None = None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        """Log a number (or one-element tensor) under ``tag``."""
        summary = _summary.scalar(tag, scalar_value, new_style=new_style,
                                  double_precision=double_precision)
        self._get_file_writer().add_summary(summary, global_step, walltime)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict[str, Any],
                    global_step: int | None = None, walltime: float | None = None) -> None:
        """Log several numbers on one chart: each under ``main_tag`` in its own run
        directory ``<log_dir>/<main_tag>_<tag>``."""
        walltime = time.time() if walltime is None else walltime
        fw_logdir = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            fw_tag = fw_logdir + "/" + main_tag.replace("/", "_") + "_" + tag
            assert self.all_writers is not None
            fw = self.all_writers.get(fw_tag)
            if fw is None:
                fw = FileWriter(fw_tag, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[fw_tag] = fw
            fw.add_summary(_summary.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag: str, values: Any, global_step: int | None = None,
                      bins: Any = "tensorflow", walltime: float | None = None,
                      max_bins: int | None = None) -> None:
        """Log a histogram of a tensor's values: ``bins`` is ``"tensorflow"`` (TensorFlow's
        buckets), a number of equal bins or a list of edges."""
        if isinstance(bins, str) and bins == "tensorflow":
            bins = self.default_bins
        self._get_file_writer().add_summary(
            _summary.histogram(tag, values, bins, max_bins=max_bins), global_step, walltime)

    def add_histogram_raw(self, tag: str, min: float, max: float, num: int, sum: float,
                          sum_squares: float, bucket_limits: Any, bucket_counts: Any,
                          global_step: int | None = None,
                          walltime: float | None = None) -> None:
        """Log a histogram given by its statistics and buckets."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("len(bucket_limits) != len(bucket_counts), see the document.")
        self._get_file_writer().add_summary(
            _summary.histogram_raw(tag, min, max, num, sum, sum_squares, list(bucket_limits),
                                   list(bucket_counts)), global_step, walltime)

    def add_image(self, tag: str, img_tensor: Any, global_step: int | None = None,
                  walltime: float | None = None, dataformats: str = "CHW") -> None:
        """Log an image (float values in [0, 1]; ``dataformats`` such as ``CHW``, ``HWC``,
        ``HW``)."""
        self._get_file_writer().add_summary(
            _summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag: str, img_tensor: Any, global_step: int | None = None,
                   walltime: float | None = None, dataformats: str = "NCHW") -> None:
        """Log a batch of images as one grid image."""
        self._get_file_writer().add_summary(
            _summary.image(tag, img_tensor, dataformats=dataformats), global_step, walltime)

    def add_text(self, tag: str, text_string: str, global_step: int | None = None,
                 walltime: float | None = None) -> None:
        """Log text (markdown) under ``tag``."""
        self._get_file_writer().add_summary(_summary.text(tag, text_string), global_step,
                                            walltime)

    def add_hparams(self, hparam_dict: dict[str, Any], metric_dict: dict[str, Any],
                    hparam_domain_discrete: dict[str, list[Any]] | None = None,
                    run_name: str | None = None, global_step: int | None = None) -> None:
        """Log a run's hyperparameters with its metrics (TensorBoard's HParams tab), in the
        sub-directory ``run_name`` (default: the time)."""
        if type(hparam_dict) is not dict or type(metric_dict) is not dict:
            raise TypeError("hparam_dict and metric_dict should be dictionary.")
        exp, ssi, sei = _summary.hparams(hparam_dict, metric_dict, hparam_domain_discrete)
        if not run_name:
            run_name = str(time.time())
        logdir = os.path.join(self._get_file_writer().get_logdir(), run_name)
        with SummaryWriter(log_dir=logdir) as w_hp:
            writer = w_hp._get_file_writer()
            writer.add_summary(exp, global_step)
            writer.add_summary(ssi, global_step)
            writer.add_summary(sei, global_step)
            for k, v in metric_dict.items():
                w_hp.add_scalar(k, v, global_step)

    def flush(self) -> None:
        """Write pending events of every file to disk."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()

    def close(self) -> None:
        """Flush and close every event file (closing twice is harmless)."""
        if self.all_writers is None:
            return
        for writer in self.all_writers.values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
