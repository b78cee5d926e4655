"""``torch.distributed.algorithms``: ``Join`` for uneven inputs (``algorithms.join``)."""

from arraygrad.distributed.algorithms.join import Join, Joinable, JoinHook

__all__ = ["Join", "JoinHook", "Joinable"]
