"""The names of PyTorch's top-level nn ops that ``arraygrad`` serves from
``arraygrad.nn._toplevel`` (``torch.conv2d``, ``torch.lstm``...): listed here so that looking
up any other missing attribute of ``arraygrad`` does not import ``nn``
(``tests/nn/test_toplevel_nn_ops.py`` checks the two lists agree)."""

MODULE = "arraygrad.nn._toplevel"
"""Where they live: a child of the package, loaded on first use like ``_LAZY_SUBMODULES``."""

NAMES = frozenset({
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "affine_grid_generator", "alpha_dropout",
    "alpha_dropout_", "avg_pool1d", "batch_norm", "batch_norm_update_stats", "bilinear",
    "binary_cross_entropy_with_logits", "celu", "celu_", "channel_shuffle", "constant_pad_nd",
    "conv1d", "conv2d", "conv3d", "conv_tbc", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "convolution", "cosine_embedding_loss", "ctc_loss", "dropout",
    "dropout_", "embedding", "embedding_renorm_", "feature_alpha_dropout",
    "feature_alpha_dropout_", "feature_dropout", "feature_dropout_", "grid_sampler",
    "grid_sampler_2d", "grid_sampler_3d", "group_norm", "gru", "gru_cell", "hardshrink",
    "hinge_embedding_loss", "instance_norm", "kl_div", "layer_norm", "lstm", "lstm_cell",
    "margin_ranking_loss", "max_pool1d", "max_pool1d_with_indices", "max_pool2d", "max_pool3d",
    "native_batch_norm", "native_channel_shuffle", "native_dropout", "native_group_norm",
    "native_layer_norm", "norm_except_dim", "pdist", "pixel_shuffle", "pixel_unshuffle",
    "poisson_nll_loss", "prelu", "rms_norm", "rnn_relu", "rnn_relu_cell", "rnn_tanh",
    "rnn_tanh_cell", "rrelu", "rrelu_", "selu", "selu_", "threshold", "threshold_",
    "triplet_margin_loss"
})
