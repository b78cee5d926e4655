"""``arraygrad.testing``: PyTorch's ``torch.testing``: ``assert_close`` (its tolerances and
messages), ``make_tensor``, and the deprecated ``assert_allclose``."""

from arraygrad.testing._comparison import assert_allclose, assert_close
from arraygrad.testing._creation import make_tensor

__all__ = ["assert_allclose", "assert_close", "make_tensor"]
