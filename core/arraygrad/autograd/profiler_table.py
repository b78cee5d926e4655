"""PyTorch's profiler table (``EventList.table``), column for column.

Name, then Self CPU %, Self CPU, CPU total %, CPU total, CPU time avg; with device time
measured, Self CUDA, Self CUDA %, CUDA total, CUDA time avg; with ``profile_memory``, CPU Mem
and Self CPU Mem (and the device's); # of Calls; Input Shapes when the rows have them;
Source Location when they have stacks; Total FLOPs (scaled: KFLOPs, MFLOPs...) with
``with_flops``. The footer gives the self totals, or the note saying why device time was not
measured.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from arraygrad.autograd.profiler_format import format_memory, format_time, format_time_share

if TYPE_CHECKING:
    from arraygrad.autograd.profiler_util import EventList

__all__ = ["build_table"]

_DEFAULT_WIDTH = 12
_SPACING = 2
_FLOP_UNITS = ("FLOPs", "KFLOPs", "MFLOPs", "GFLOPs", "TFLOPs", "PFLOPs")


def _in_unit(time_us: float, time_unit: str | None) -> str:
    if time_unit == "s":
        return f"{time_us / 1e6:.3f}s"
    if time_unit == "ms":
        return f"{time_us / 1e3:.3f}ms"
    if time_unit == "us":
        return f"{time_us:.3f}us"
    return format_time(time_us)


def _flops_scale(smallest: float) -> tuple[float, str]:
    """The scale and unit of the FLOPs column: the one the smallest value reads best in."""
    step = max(0.0, min(math.log10(smallest) / 3, float(len(_FLOP_UNITS) - 1)))
    return 10 ** (math.floor(step) * -3.0), _FLOP_UNITS[int(step)]


def _trim_path(path: str, width: int) -> str:
    if len(path) > width:
        path = path[len(path) - width:]
        if len(path) > 3:
            path = "..." + path[3:]
    return path


def _sort_attribute(sort_by: str, sample: Any) -> str:
    attr = sort_by.replace("cuda", "device").replace("xpu", "device").replace(
        "privateuse1", "device")
    if not hasattr(sample, attr):
        raise AttributeError(f"table: sort_by={sort_by!r}: the rows have no attribute {attr!r}")
    return attr


def build_table(events: EventList, sort_by: str | None = None, header: str | None = None,
                row_limit: int = 100, max_src_column_width: int = 75,
                max_name_column_width: int = 55, max_shapes_column_width: int = 80,
                with_flops: bool = False, profile_memory: bool = False,
                top_level_events_only: bool = False, time_unit: str | None = None) -> str:
    """The table of ``events`` (FunctionEvents or FunctionEventAvgs), as PyTorch prints it."""
    if len(events) == 0:
        return events.device_note + "\n" if events.device_note else ""
    rows = list(events)
    if sort_by is not None:
        attr = _sort_attribute(sort_by, rows[0])
        rows.sort(key=lambda r: getattr(r, attr), reverse=True)
    has_device_time = events.device_measured
    has_device_mem = any(r.self_device_memory_usage > 0 for r in rows)
    device = (events.use_device or "None").split(":")[0].upper()
    has_shapes = any(r.input_shapes is not None and len(r.input_shapes) > 0 for r in rows)
    has_overloads = any(r.overload_name for r in rows)
    stacks = [r.stack for r in rows if r.stack]

    name_width = max(len(r.key) for r in rows) + 4
    if max_name_column_width is not None:
        name_width = min(name_width, max_name_column_width)
    shapes_width = max(len(str(r.input_shapes)) for r in rows) + 4
    if max_shapes_column_width is not None:
        shapes_width = min(shapes_width, max_shapes_column_width)

    headers = ["Name"] + (["Overload Name"] if has_overloads else [])
    headers += ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg"]
    if has_device_time:
        headers += [f"Self {device}", f"Self {device} %", f"{device} total",
                    f"{device} time avg"]
    if profile_memory:
        headers += ["CPU Mem", "Self CPU Mem"]
        if events.use_device and has_device_mem:
            headers += [f"{device} Mem", f"Self {device} Mem"]
    headers.append("# of Calls")
    with_node_id = any(r.node_id not in (-1, 0) for r in rows)
    if with_node_id:
        headers.append("Node ID")
    widths = [name_width] * (1 + has_overloads)
    widths += [_DEFAULT_WIDTH] * (len(headers) - len(widths))
    aligns = [">"] * len(widths)
    if has_shapes:
        headers.append("Input Shapes")
        widths.append(shapes_width)
        aligns.append(">")
    if stacks:
        src_width = max(max(len(entry) for entry in s) for s in stacks) + 4
        if max_src_column_width is not None:
            src_width = min(src_width, max_src_column_width)
        headers.append("Source Location")
        widths.append(src_width)
        aligns.append("<")
    flops_scale = 1.0
    if with_flops:
        raw = [r.flops for r in rows if r.flops and r.flops > 0]
        if raw:
            flops_scale, unit = _flops_scale(min(raw))
            headers.append(f"Total {unit}")
            widths.append(_DEFAULT_WIDTH)
            aligns.append(">")
        else:
            with_flops = False  # no row has any

    row_format = "".join("{: " + a + str(w) + "}" + " " * _SPACING
                         for a, w in zip(aligns, widths))
    separator = "".join("-" * w + " " * _SPACING for w in widths)
    line_length = sum(widths) + _SPACING * (len(widths) - 1)

    total_self = sum(r.self_cpu_time_total for r in rows)
    total_self_device = sum(r.self_device_time_total for r in rows
                            if not getattr(r, "is_user_annotation", False))
    lines: list[str] = []
    if header is not None:
        lines += ["=" * line_length, header]
    if top_level_events_only:
        lines += ["=" * line_length, "This report only display top-level ops statistics"]
    lines += [separator, row_format.format(*headers), separator]

    shown = 0
    for r in rows:
        if shown == row_limit:
            break
        if top_level_events_only and r.cpu_parent is not None:
            continue
        shown += 1
        name = r.key
        if max_name_column_width is not None and len(name) >= max_name_column_width - 3:
            name = name[:max_name_column_width - 3] + "..."
        r.self_cpu_percent = format_time_share(r.self_cpu_time_total, total_self)
        r.total_cpu_percent = (format_time_share(r.cpu_time_total, total_self)
                               if not r.is_async else 0)
        values: list[Any] = [name]
        if has_overloads:
            values.append((r.overload_name or "")[:max_name_column_width - 3])
        values += [r.self_cpu_percent, _in_unit(r.self_cpu_time_total, time_unit),
                   r.total_cpu_percent, _in_unit(r.cpu_time_total, time_unit),
                   _in_unit(r.cpu_time, time_unit)]
        if has_device_time:
            r.total_device_percent = format_time_share(r.self_device_time_total,
                                                       total_self_device)
            values += [_in_unit(r.self_device_time_total, time_unit), r.total_device_percent,
                       _in_unit(r.device_time_total, time_unit),
                       _in_unit(r.device_time, time_unit)]
        if profile_memory:
            values += [format_memory(r.cpu_memory_usage), format_memory(r.self_cpu_memory_usage)]
            if events.use_device and has_device_mem:
                values += [format_memory(r.device_memory_usage),
                           format_memory(r.self_device_memory_usage)]
        values.append(r.count)
        if with_node_id:
            values.append(r.node_id)
        if has_shapes:
            values.append(str(r.input_shapes)[:shapes_width])
        if stacks:
            values.append(_trim_path(r.stack[0], src_width) if r.stack else "")
        if with_flops:
            values.append("--" if not r.flops or r.flops <= 0 else
                          f"{r.flops * flops_scale:8.3f}")
        lines.append(row_format.format(*values))
        if stacks and r.stack:
            blank = [""] * (len(headers) - 1 - with_flops)
            for entry in r.stack[1:]:
                more = [""] if with_flops else []
                lines.append(row_format.format(*blank, _trim_path(entry, src_width), *more))
            lines.append(row_format.format(*([""] * len(headers))))
    lines += [separator, f"Self CPU time total: {_in_unit(total_self, time_unit)}"]
    if has_device_time:
        lines.append(f"Self {device} time total: {_in_unit(total_self_device, time_unit)}")
    elif events.device_note:
        lines.append(events.device_note)
    return "\n".join(lines) + "\n"
