# dl.nn (torch.nn).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from . import functional, init, utils
from .utils import rnn as _rnn  # noqa: F401  (nn.utils.rnn)
from .modules import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, Flatten, GELU, HuberLoss,
                      Identity, KLDivLoss, L1Loss, LeakyReLU, Linear, LogSoftmax, Module,
                      MSELoss, NLLLoss, ReLU, Sequential, Sigmoid, SiLU, SmoothL1Loss, Softmax,
                      Tanh)
from .modules import ModuleDict, ModuleList, Unflatten
from .parameter import Parameter
from .conv import (ELU, AdaptiveAvgPool2d, AvgPool2d, Conv1d, Conv2d, ConvTranspose2d, Dropout,
                   Embedding, Fold, Hardtanh, MaxPool2d, Softplus, Unfold)
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm, SyncBatchNorm

__all__ = ['Module', 'Linear', 'Parameter', 'ReLU', 'LeakyReLU', 'Sigmoid', 'Tanh', 'GELU',
           'SiLU', 'Identity', 'Flatten', 'LogSoftmax', 'Softmax', 'Sequential',
           'CrossEntropyLoss', 'NLLLoss', 'MSELoss', 'L1Loss', 'SmoothL1Loss', 'HuberLoss',
           'BCELoss', 'BCEWithLogitsLoss', 'KLDivLoss', 'functional', 'init', 'utils']
__all__ += ['Conv1d', 'Conv2d', 'ConvTranspose2d', 'Fold', 'Unfold', 'MaxPool2d', 'AvgPool2d',
            'AdaptiveAvgPool2d', 'Dropout', 'BatchNorm1d', 'BatchNorm2d', 'LayerNorm',
            'Embedding', 'ELU', 'Hardtanh', 'Softplus']
__all__ += ['GroupNorm', 'SyncBatchNorm']
from .resample import Dropout2d, Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa
from .conv import AdaptiveMaxPool2d  # noqa
__all__ += ['Upsample', 'UpsamplingNearest2d', 'UpsamplingBilinear2d', 'Dropout2d',
            'AdaptiveMaxPool2d']
__all__ += ['ModuleList', 'ModuleDict', 'Unflatten']
from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, RNNBase, RNNCell  # noqa
__all__ += ['RNNBase', 'RNN', 'LSTM', 'GRU', 'RNNCell', 'LSTMCell', 'GRUCell']
from .transformer import (MultiheadAttention, Transformer, TransformerDecoder,  # noqa: E402
                          TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)
__all__ += ['MultiheadAttention', 'Transformer', 'TransformerEncoder', 'TransformerDecoder',
            'TransformerEncoderLayer', 'TransformerDecoderLayer']
from .convnd import Conv3d, ConvTranspose1d, ConvTranspose3d  # noqa: E402
from .fractional_pool import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402
from .pool import (AdaptiveAvgPool1d, AdaptiveAvgPool3d, AdaptiveMaxPool1d,  # noqa: E402
                   AdaptiveMaxPool3d, AvgPool1d, AvgPool3d, ChannelShuffle, LPPool1d, LPPool2d,
                   MaxPool1d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d, PixelShuffle,
                   PixelUnshuffle)
__all__ += ['Conv3d', 'ConvTranspose1d', 'ConvTranspose3d', 'MaxPool1d', 'MaxPool3d',
            'AvgPool1d', 'AvgPool3d', 'AdaptiveAvgPool1d', 'AdaptiveAvgPool3d',
            'AdaptiveMaxPool1d', 'AdaptiveMaxPool3d', 'LPPool1d', 'LPPool2d', 'MaxUnpool1d',
            'MaxUnpool2d', 'MaxUnpool3d', 'PixelShuffle', 'PixelUnshuffle', 'ChannelShuffle',
            'FractionalMaxPool2d', 'FractionalMaxPool3d']
from .activation import (CELU, GLU, Hardshrink, Hardsigmoid, Hardswish, LogSigmoid,  # noqa
                         Mish, PReLU, ReLU6, RReLU, SELU, Softmax2d, Softmin, Softshrink,
                         Softsign, Tanhshrink, Threshold)
__all__ += ['ReLU6', 'Hardswish', 'Hardsigmoid', 'Hardshrink', 'Softshrink', 'Tanhshrink',
            'Softsign', 'SELU', 'CELU', 'Mish', 'LogSigmoid', 'Threshold', 'RReLU', 'PReLU',
            'GLU', 'Softmin', 'Softmax2d']
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402
from .margin_loss import (CosineEmbeddingLoss, HingeEmbeddingLoss, MarginRankingLoss,  # noqa
                          MultiLabelMarginLoss, MultiLabelSoftMarginLoss, MultiMarginLoss,
                          SoftMarginLoss, TripletMarginLoss, TripletMarginWithDistanceLoss)
__all__ += ['CosineSimilarity', 'PairwiseDistance', 'CosineEmbeddingLoss', 'MarginRankingLoss',
            'HingeEmbeddingLoss', 'SoftMarginLoss', 'MultiLabelSoftMarginLoss',
            'MultiLabelMarginLoss', 'MultiMarginLoss', 'TripletMarginLoss',
            'TripletMarginWithDistanceLoss']
# torch.nn.modules' submodules (each sets the __module__ of its classes, so
# it comes after every layer's definition) and torch.nn.parallel
from . import modules  # noqa: E402
import importlib  # noqa: E402
for _name in modules._SUBMODULES:
    importlib.import_module('.' + _name, modules.__name__)
from . import parallel  # noqa: E402
from .parallel import DataParallel  # noqa: E402
__all__ += ['modules', 'parallel', 'DataParallel']
# padding, instance and local response norm, the dropout family, Bilinear,
# LazyLinear, EmbeddingBag, the parameter containers and the likelihood
# losses
from .padding import (ConstantPad1d, ConstantPad2d, ConstantPad3d, ReflectionPad1d,  # noqa
                      ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d,
                      ReplicationPad3d, ZeroPad2d)
from .normalization import (BatchNorm3d, InstanceNorm1d, InstanceNorm2d,  # noqa: E402
                            InstanceNorm3d, LocalResponseNorm, CrossMapLRN2d)
from .dropout import AlphaDropout, Dropout1d, Dropout3d, FeatureAlphaDropout  # noqa: E402
from .bilinear import Bilinear  # noqa: E402
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d,  # noqa: E402
                   LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
                   LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d,
                   LazyInstanceNorm3d, LazyLinear)
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: E402
from .embedding_bag import EmbeddingBag  # noqa: E402
from .parameter_containers import ParameterDict, ParameterList  # noqa: E402
from .likelihood_losses import GaussianNLLLoss, PoissonNLLLoss  # noqa: E402
from .ctc import CTCLoss  # noqa: E402
__all__ += ['ConstantPad1d', 'ConstantPad2d', 'ConstantPad3d', 'ZeroPad2d', 'ReflectionPad1d',
            'ReflectionPad2d', 'ReflectionPad3d', 'ReplicationPad1d', 'ReplicationPad2d',
            'ReplicationPad3d', 'BatchNorm3d', 'InstanceNorm1d', 'InstanceNorm2d',
            'InstanceNorm3d', 'LocalResponseNorm', 'CrossMapLRN2d', 'Dropout1d', 'Dropout3d',
            'AlphaDropout',
            'FeatureAlphaDropout', 'Bilinear', 'LazyLinear', 'EmbeddingBag', 'ParameterList',
            'ParameterDict', 'GaussianNLLLoss', 'PoissonNLLLoss', 'CTCLoss', 'LazyConv1d',
            'LazyConv2d', 'LazyConv3d', 'LazyConvTranspose1d', 'LazyConvTranspose2d',
            'LazyConvTranspose3d', 'LazyBatchNorm1d', 'LazyBatchNorm2d', 'LazyBatchNorm3d',
            'LazyInstanceNorm1d', 'LazyInstanceNorm2d', 'LazyInstanceNorm3d',
            'UninitializedParameter', 'UninitializedBuffer']
