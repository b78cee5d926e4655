"""The summaries a ``SummaryWriter`` writes, built as PyTorch's ``torch.utils.tensorboard``
builds them (TensorBoard's protocol buffers), from tensors read as Python numbers: scalars,
histograms (NumPy's binning, PyTorch's trimming of empty buckets), PNG images (encoded here
with ``zlib``), text and hyperparameters."""

from __future__ import annotations

import bisect
import math
import struct
import zlib
from typing import Any

from tensorboard.compat.proto.summary_pb2 import HistogramProto, Summary, SummaryMetadata
from tensorboard.compat.proto.tensor_pb2 import TensorProto
from tensorboard.compat.proto.tensor_shape_pb2 import TensorShapeProto
from tensorboard.plugins.text.plugin_data_pb2 import TextPluginData

from arraygrad.tensor import Tensor


def _values(x: Any) -> list[Any]:
    """A tensor's (or number's or list's) elements as a flat list of Python numbers."""
    if isinstance(x, Tensor):
        return list(x.detach().cpu().flatten().tolist())
    if isinstance(x, (int, float, bool)):
        return [x]
    if hasattr(x, "tolist"):  # another library's array
        flat = x.tolist()
        return _flatten(flat) if isinstance(flat, list) else [flat]
    if isinstance(x, (list, tuple)):
        return _flatten([*x])
    raise NotImplementedError(f"Got {type(x)}, but numpy array or torch tensor are expected.")


def _flatten(items: list[Any]) -> list[Any]:
    out: list[Any] = []
    for item in items:
        out.extend(_flatten([*item]) if isinstance(item, (list, tuple)) else [item])
    return out


def scalar(name: str, value: Any, new_style: bool = False,
           double_precision: bool = False) -> Summary:
    """A scalar summary of a number or one-element tensor."""
    values = _values(value)
    if len(values) != 1:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given size: "
                             f"{len(values)} and 1 dimensions.")
    number = float(values[0])
    if new_style:
        proto = (TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision
                 else TensorProto(float_val=[number], dtype="DT_FLOAT"))
        metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
        return Summary(value=[Summary.Value(tag=name, tensor=proto, metadata=metadata)])
    return Summary(value=[Summary.Value(tag=name, simple_value=number)])


def histogram_raw(name: str, min: float, max: float, num: int, sum: float, sum_squares: float,
                  bucket_limits: list[float], bucket_counts: list[float]) -> Summary:
    """A histogram summary from its statistics and buckets."""
    hist = HistogramProto(min=min, max=max, num=num, sum=sum, sum_squares=sum_squares,
                          bucket_limit=bucket_limits, bucket=bucket_counts)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def _bin(values: list[float], bins: Any) -> tuple[list[int], list[float]]:
    """``numpy.histogram``'s counts and edges for ``bins`` (a count or the edges)."""
    if isinstance(bins, str):
        raise ValueError(f"bins={bins!r}: arraygrad bins histograms with 'tensorflow' (the "
                         "default), a number of bins or a list of edges (NumPy's bin estimators "
                         "are not available)")
    if isinstance(bins, int):
        low, high = min(values), max(values)
        if low == high:
            low, high = low - 0.5, high + 0.5
        edges = [low + (high - low) * i / bins for i in range(bins + 1)]
    else:
        edges = [float(e) for e in bins]
    counts = [0] * (len(edges) - 1)
    for v in values:
        if v < edges[0] or v > edges[-1]:
            continue
        index = bisect.bisect_right(edges, v) - 1
        counts[min(index, len(counts) - 1)] += 1  # the last bin includes its right edge
    return counts, edges


def make_histogram(values: list[float], bins: Any, max_bins: int | None = None
                   ) -> HistogramProto:
    """The histogram proto of ``values``, empty buckets at either end trimmed as PyTorch's."""
    if not values:
        raise ValueError("The input has no element.")
    counts, limits = _bin(values, bins)
    if max_bins is not None and len(counts) > max_bins:
        sub = len(counts) // max_bins
        if len(counts) % sub:
            counts = counts + [0] * (sub - len(counts) % sub)
        counts = [sum(counts[i:i + sub]) for i in range(0, len(counts), sub)]
        limits = limits[:-1:sub] + [limits[-1]]
    cum: list[int] = []
    total = 0
    for c in counts:
        total += c > 0
        cum.append(total)
    start = bisect.bisect_right(cum, 0)
    end = bisect.bisect_right(cum, cum[-1] - 1) + 1
    counts = counts[start - 1:end] if start > 0 else [0] + counts[:end]
    limits = limits[start:end + 1]
    if not counts or not limits:
        raise ValueError("The histogram is empty, please file a bug report.")
    return HistogramProto(min=min(values), max=max(values), num=len(values), sum=sum(values),
                          sum_squares=sum(v * v for v in values), bucket_limit=limits,
                          bucket=counts)


def histogram(name: str, values: Any, bins: Any, max_bins: int | None = None) -> Summary:
    """A histogram summary of a tensor's values."""
    hist = make_histogram([float(v) for v in _values(values)], bins, max_bins)
    return Summary(value=[Summary.Value(tag=name, histo=hist)])


def _png(pixels: list[list[list[int]]]) -> bytes:
    """PNG bytes of an 8-bit image given as rows of ``[channel values]`` pixels."""
    height, width, channels = len(pixels), len(pixels[0]), len(pixels[0][0])
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw))
            + chunk(b"IEND", b""))


def _to_hwc(t: Tensor, dataformats: str) -> Tensor:
    """The image as height x width x channels, as PyTorch's ``convert_to_HWC`` (a batch is
    laid out in a grid of 8 columns; one channel becomes three)."""
    import arraygrad

    if len(set(dataformats)) != len(dataformats):
        raise AssertionError("You can not use the same dimension shorthand twice. input_format: "
                             f"{dataformats}")
    if t.dim() != len(dataformats):
        raise AssertionError(f"size of input tensor and input format are different. tensor "
                             f"shape: {tuple(t.shape)}, input_format: {dataformats}")
    fmt = dataformats.upper()
    if len(fmt) == 4:
        nchw = t.permute(*[fmt.find(c) for c in "NCHW"])
        if nchw.shape[1] == 1:
            nchw = arraygrad.cat([nchw, nchw, nchw], 1)
        if nchw.shape[1] != 3:
            raise AssertionError("Input should be a 4D numpy array with 3 channels")
        n, _, h, w = nchw.shape
        ncols = min(n, 8)
        nrows = math.ceil(n / ncols)
        canvas = arraygrad.zeros((3, h * nrows, w * ncols), dtype=nchw.dtype)
        for i in range(n):
            y, x = divmod(i, ncols)
            canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = nchw[i]
        return canvas.permute(1, 2, 0)
    if len(fmt) == 3:
        hwc = t.permute(*[fmt.find(c) for c in "HWC"])
        return arraygrad.cat([hwc, hwc, hwc], 2) if hwc.shape[2] == 1 else hwc
    if len(fmt) == 2:
        hw = t.permute(*[fmt.find(c) for c in "HW"])
        return arraygrad.stack([hw, hw, hw], 2)
    raise AssertionError(f"dataformats must have 2 to 4 letters, got {dataformats}")


def image(tag: str, tensor: Any, rescale: float = 1, dataformats: str = "NCHW") -> Summary:
    """An image summary: float images are in [0, 1] (scaled by 255, as PyTorch scales every
    image that is not uint8, a dtype arraygrad does not have), clipped to 0..255."""
    import arraygrad

    if rescale != 1:
        raise ValueError("rescale: arraygrad writes images at their size (PyTorch resizes "
                         "with PIL's Lanczos filter); rescale must be 1")
    t = tensor if isinstance(tensor, Tensor) else arraygrad.as_tensor(tensor)
    hwc = _to_hwc(t.detach().cpu().to(arraygrad.float32), dataformats)
    scaled = arraygrad.clamp(hwc * 255, 0, 255)
    rows = [[[int(v) for v in px] for px in row] for row in scaled.tolist()]
    height, width, channels = hwc.shape
    img = Summary.Image(height=height, width=width, colorspace=channels,
                        encoded_image_string=_png(rows))
    return Summary(value=[Summary.Value(tag=tag, image=img)])


def text(tag: str, text: str) -> Summary:
    """A text summary (TensorBoard's text plugin)."""
    plugin = SummaryMetadata.PluginData(plugin_name="text",
                                        content=TextPluginData(version=0).SerializeToString())
    tensor = TensorProto(dtype="DT_STRING", string_val=[text.encode(encoding="utf_8")],
                         tensor_shape=TensorShapeProto(dim=[TensorShapeProto.Dim(size=1)]))
    return Summary(value=[Summary.Value(tag=tag + "/text_summary",
                                        metadata=SummaryMetadata(plugin_data=plugin),
                                        tensor=tensor)])


def hparams(hparam_dict: Any, metric_dict: Any,
            hparam_domain_discrete: dict[str, list[Any]] | None = None,
            ) -> tuple[Summary, Summary, Summary]:
    """The experiment, session-start and session-end summaries of TensorBoard's hparams
    plugin for one run's hyperparameters and metrics."""
    from google.protobuf import struct_pb2
    from tensorboard.plugins.hparams.api_pb2 import (DataType, Experiment, HParamInfo,
                                                     MetricInfo, MetricName, Status)
    from tensorboard.plugins.hparams.metadata import (EXPERIMENT_TAG, PLUGIN_DATA_VERSION,
                                                      PLUGIN_NAME, SESSION_END_INFO_TAG,
                                                      SESSION_START_INFO_TAG)
    from tensorboard.plugins.hparams.plugin_data_pb2 import (HParamsPluginData, SessionEndInfo,
                                                             SessionStartInfo)

    if not isinstance(hparam_dict, dict):
        raise TypeError("parameter: hparam_dict should be a dictionary, nothing logged.")
    if not isinstance(metric_dict, dict):
        raise TypeError("parameter: metric_dict should be a dictionary, nothing logged.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing "
                        "logged.")
    for k, choices in domains.items():
        if k not in hparam_dict or not isinstance(choices, list) or not all(
                isinstance(d, type(hparam_dict[k])) for d in choices):
            raise TypeError(f"parameter: hparam_domain_discrete[{k}] should be a list of same "
                            f"type as hparam_dict[{k}].")
    infos: list[Any] = []
    ssi = SessionStartInfo()
    for k, value in hparam_dict.items():
        if value is None:
            continue
        v = float(_values(value)[0]) if isinstance(value, Tensor) else value
        # PyTorch's order: numbers first (a bool is an int, so it is logged as a number)
        if isinstance(v, (int, float)):
            ssi.hparams[k].number_value = v
            field, kind = "number_value", "DATA_TYPE_FLOAT64"
        elif isinstance(v, str):
            ssi.hparams[k].string_value = v
            field, kind = "string_value", "DATA_TYPE_STRING"
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        domain = (struct_pb2.ListValue(values=[struct_pb2.Value(**{field: d}) for d in domains[k]])
                  if k in domains else None)
        infos.append(HParamInfo(name=k, type=DataType.Value(kind), domain_discrete=domain))

    def summary(tag: str, content: Any) -> Summary:
        metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(
            plugin_name=PLUGIN_NAME, content=content.SerializeToString()))
        return Summary(value=[Summary.Value(tag=tag, metadata=metadata)])

    start = summary(SESSION_START_INFO_TAG,
                    HParamsPluginData(session_start_info=ssi, version=PLUGIN_DATA_VERSION))
    experiment = Experiment(hparam_infos=infos,
                            metric_infos=[MetricInfo(name=MetricName(tag=k)) for k in metric_dict])
    exp = summary(EXPERIMENT_TAG,
                  HParamsPluginData(experiment=experiment, version=PLUGIN_DATA_VERSION))
    end = summary(SESSION_END_INFO_TAG, HParamsPluginData(
        session_end_info=SessionEndInfo(status=Status.Value("STATUS_SUCCESS")),
        version=PLUGIN_DATA_VERSION))
    return exp, start, end
