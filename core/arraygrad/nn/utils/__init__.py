"""``arraygrad.nn.utils``: gradient clipping, parameter/vector conversion, recurrent-sequence
packing, parametrizations (``weight_norm``, ``spectral_norm``) and ``stateless.functional_call``,
as in ``torch.nn.utils``."""
from arraygrad.nn.utils import rnn
