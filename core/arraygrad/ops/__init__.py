"""The op library: one file per family of differentiable operations."""
