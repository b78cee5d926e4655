"""``arraygrad.utils.benchmark.utils``: the benchmark's modules (``common``, ``timer``,
``compare``)."""

from arraygrad.utils.benchmark.utils import common, compare, timer

__all__ = ["common", "compare", "timer"]
