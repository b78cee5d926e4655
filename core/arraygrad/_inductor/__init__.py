"""``arraygrad._inductor``: the ``torch._inductor.config`` settings programs set.

arraygrad has no Inductor (``arraygrad.compile`` replays recorded array calls, with CUDA graphs
when the backend captures): the settings are stored and answered back and change nothing
(docs/differences.md).
"""

from __future__ import annotations

from arraygrad._dynamo.config_namespace import ConfigNamespace

__all__ = ["config"]

config = ConfigNamespace("arraygrad._inductor.config", {
    "max_autotune": False, "max_autotune_gemm": False, "max_autotune_pointwise": False,
    "coordinate_descent_tuning": False, "freezing": False, "fx_graph_cache": True,
    "epilogue_fusion": True, "force_fuse_int_mm_with_mul": False, "use_mixed_mm": True,
    "compile_threads": 1, "debug": False, "cpp_wrapper": False, "shape_padding": True,
    "fallback_random": False, "benchmark_kernel": False, "conv_1x1_as_mm": False,
    "split_reductions": True, "unroll_reductions_threshold": 8, "worker_start_method": "subprocess",
    "triton": ConfigNamespace("arraygrad._inductor.config.triton", {
        "cudagraphs": False, "cudagraph_trees": True, "unique_kernel_names": False,
        "descriptive_names": "original_aten"}),
})
"""``torch._inductor.config``'s settings (stored, no effect)."""
