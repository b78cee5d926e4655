"""A test backend without float64, to exercise the suite's float32-only path."""
