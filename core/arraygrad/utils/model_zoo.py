"""``arraygrad.utils.model_zoo``: PyTorch's ``torch.utils.model_zoo``: ``load_url`` is
``hub.load_state_dict_from_url``."""

from arraygrad.hub import load_state_dict_from_url as load_url, tqdm

__all__ = ["load_url", "tqdm"]
