"""``arraygrad.nn.utils``: gradient clipping, parameter/vector conversion, recurrent-sequence
packing, parametrizations (``weight_norm``, ``spectral_norm``, ``orthogonal``), pruning,
``stateless.functional_call``, conv/linear-batch-norm fusion and ``skip_init``, as in
``torch.nn.utils``."""

from arraygrad.nn.utils import clip_grad, convert_parameters, stateless
from arraygrad.nn.utils.clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_,
                                          clip_grads_with_norm_, get_total_norm)
from arraygrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from arraygrad.nn.utils import parametrizations, parametrize, rnn
from arraygrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from arraygrad.nn.utils.weight_norm import remove_weight_norm, weight_norm
from arraygrad.nn.utils import fusion, init, memory_format, prune
from arraygrad.nn.utils.fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                                       fuse_linear_bn_weights)
from arraygrad.nn.utils.init import skip_init
from arraygrad.nn.utils.memory_format import (convert_conv2d_weight_memory_format,
                                              convert_conv3d_weight_memory_format)
