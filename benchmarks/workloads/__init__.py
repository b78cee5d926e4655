"""Benchmark workloads: each builds the same computation for raw NumPy (hand-written
gradients, the floor), arraygrad and, when installed, PyTorch."""
