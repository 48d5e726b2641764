# functional.py: dl.nn.functional (torch.nn.functional).
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import Dl, GLib, _translate

__all__ = ['relu', 'sigmoid', 'tanh', 'log_softmax', 'softmax', 'linear', 'cross_entropy',
           'nll_loss', 'gelu', 'silu', 'one_hot', 'leaky_relu', 'leaky_relu_']


def relu(input, inplace=False):
    return input.relu_() if inplace else input.relu()


def leaky_relu(input, negative_slope=0.01, inplace=False):
    if inplace:
        return leaky_relu_(input, negative_slope)
    return Dl.Tensor.leaky_relu(input, float(negative_slope))


def leaky_relu_(input, negative_slope=0.01):
    Dl.Tensor.leaky_relu_(input, float(negative_slope))
    return input


def sigmoid(input):
    return input.sigmoid()


def tanh(input):
    return input.tanh()


def log_softmax(input, dim=None, dtype=None):
    return input.log_softmax(dim, dtype)


def softmax(input, dim=None, dtype=None):
    return input.softmax(dim, dtype)


def linear(input, weight, bias=None):
    return (input @ weight.t() + bias) if bias is not None else input @ weight.t()


def gelu(input, approximate='none'):
    if approximate == 'none':
        return Dl.Tensor.gelu(input)
    if approximate == 'tanh':
        return Dl.Tensor.gelu_tanh(input)
    raise RuntimeError("approximate argument must be either none or tanh.")


def silu(input, inplace=False):
    return Dl.Tensor.silu_(input) if inplace else Dl.Tensor.silu(input)


def one_hot(tensor, num_classes=-1):
    try:
        return Dl.one_hot(tensor, int(num_classes))
    except GLib.Error as e:
        raise _translate(e) from None


def _check_batch(input, target):
    if input.get_ndim() >= 1 and target.get_ndim() >= 1 and \
            input.get_shape()[0] != target.get_shape()[0]:
        raise ValueError('Expected input batch_size (%d) to match target batch_size (%d).'
                         % (input.get_shape()[0], target.get_shape()[0]))


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction='mean',
                  label_smoothing=0.0):
    if weight is not None or reduction != 'mean' or label_smoothing != 0.0:
        raise NotImplementedError('cross_entropy: weight, reduction other than "mean" and '
                                  'label_smoothing arrive with the nn milestone')
    _check_batch(input, target)
    try:
        return Dl.cross_entropy(input, target)
    except GLib.Error as e:
        raise _translate(e) from None


def nll_loss(input, target, weight=None, ignore_index=-100, reduction='mean'):
    if weight is not None or reduction != 'mean':
        raise NotImplementedError('nll_loss: weight and reduction other than "mean" arrive with '
                                  'the nn milestone')
    _check_batch(input, target)
    try:
        return Dl.nll_loss(input, target)
    except GLib.Error as e:
        raise _translate(e) from None
