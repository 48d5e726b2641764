# utils.py: torch.distributions.utils: broadcasting parameters, converting
# between probabilities and logits, lazily computed attributes.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import numbers
from functools import update_wrapper

import dl as torch
import dl.nn.functional as F

euler_constant = 0.57721566490153286060  # Euler-Mascheroni


def broadcast_all(*values):
    """The tensors and numbers @values as tensors of one broadcast shape;
    numbers take the dtype and device of the first tensor (the default
    dtype without one)."""
    if not all(isinstance(v, (torch.Tensor, numbers.Number)) for v in values):
        raise ValueError('Input arguments must all be instances of numbers.Number, '
                         'torch.Tensor or objects implementing __torch_function__.')
    if not all(isinstance(v, torch.Tensor) for v in values):
        ref = next((v for v in values if isinstance(v, torch.Tensor)), None)
        kw = {'dtype': torch.get_default_dtype()} if ref is None else {'dtype': ref.dtype,
                                                                        'device': ref.device}
        values = [v if isinstance(v, torch.Tensor) else torch.tensor(v, **kw) for v in values]
    return torch.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return torch.randn(shape, dtype=dtype, device=device)


def _sum_rightmost(value, dim):
    """value summed over its @dim rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    if is_binary:
        return torch.sigmoid(logits)
    return F.softmax(logits, dim=-1)


def clamp_probs(probs):
    eps = torch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return torch.log(ps_clamped) - torch.log1p(-ps_clamped)
    return torch.log(ps_clamped)


class lazy_property(object):
    """A property computed on first access and then stored on the instance
    (a plain attribute from then on)."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with torch.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)



class _BinaryProbsLogits(object):
    """probs and logits of a success probability, each computed from the
    other on first use (whichever the distribution was given)."""

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)


class _LocationModes(object):
    """mean and mode: the location parameter loc"""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
