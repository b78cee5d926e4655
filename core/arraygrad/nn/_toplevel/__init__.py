"""PyTorch's top-level forms of the neural-network ops (``torch.conv2d``, ``torch.layer_norm``,
``torch.lstm``...), with ATen's positional signatures, over ``nn.functional``: served as
``arraygrad.<name>`` (``arraygrad.__getattr__`` looks them up here, so importing arraygrad
does not import ``nn``)."""

from arraygrad.nn._toplevel import conv_pool, elementwise, losses, norms, recurrent
from arraygrad.nn._toplevel.conv_pool import *  # noqa: F401,F403
from arraygrad.nn._toplevel.elementwise import *  # noqa: F401,F403
from arraygrad.nn._toplevel.losses import *  # noqa: F401,F403
from arraygrad.nn._toplevel.norms import *  # noqa: F401,F403
from arraygrad.nn._toplevel.recurrent import *  # noqa: F401,F403

__all__ = [name for family in (conv_pool, elementwise, losses, norms, recurrent)
           for name in family.__all__]
