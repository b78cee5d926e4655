"""``arraygrad.nn.utils``: gradient clipping, parameter/vector conversion, recurrent-sequence
packing, parametrizations (``weight_norm``, ``spectral_norm``) and ``stateless.functional_call``,
as in ``torch.nn.utils``."""

from arraygrad.nn.utils import parametrizations, parametrize, rnn
from arraygrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from arraygrad.nn.utils.weight_norm import remove_weight_norm, weight_norm
