"""``arraygrad.nn.utils``: gradient clipping, parameter/vector conversion, recurrent-sequence
packing, parametrizations (``weight_norm``, ``spectral_norm``) and ``stateless.functional_call``,
as in ``torch.nn.utils``."""

from arraygrad.nn.utils import clip_grad, convert_parameters, stateless
from arraygrad.nn.utils.clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,
                                          clip_grads_with_norm_, get_total_norm)
from arraygrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from arraygrad.nn.utils import parametrizations, parametrize, rnn
from arraygrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from arraygrad.nn.utils.weight_norm import remove_weight_norm, weight_norm
