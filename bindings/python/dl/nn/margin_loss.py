# margin_loss.py: the margin and embedding losses of dl.nn.functional and
# dl.nn: cosine_embedding_loss, margin_ranking_loss, hinge_embedding_loss,
# soft_margin_loss, multilabel_soft_margin_loss, multilabel_margin_loss,
# multi_margin_loss, triplet_margin_loss and
# triplet_margin_with_distance_loss. Each but the last is libdl's C
# function (dl_margin_ranking_loss, ...) and its module libdl's C class
# (DlMarginRankingLoss, ...), which C, GJS and Vala share;
# triplet_margin_with_distance_loss, which takes a Python callable, is
# composed here from libdl's differentiable ops.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from .distance import PairwiseDistance, pairwise_distance
from .modules import Module, _Loss

__all__ = ['cosine_embedding_loss', 'margin_ranking_loss', 'hinge_embedding_loss',
           'soft_margin_loss', 'multilabel_soft_margin_loss', 'multilabel_margin_loss',
           'multi_margin_loss', 'triplet_margin_loss', 'triplet_margin_with_distance_loss',
           'CosineEmbeddingLoss', 'MarginRankingLoss', 'HingeEmbeddingLoss', 'SoftMarginLoss',
           'MultiLabelSoftMarginLoss', 'MultiLabelMarginLoss', 'MultiMarginLoss',
           'TripletMarginLoss', 'TripletMarginWithDistanceLoss']

_ENUMS = {'none': Dl.Reduction.NONE, 'mean': Dl.Reduction.MEAN, 'sum': Dl.Reduction.SUM}


def _reduction(size_average, reduce, reduction):
    """torch's reduction string, from the deprecated flags when either is
    given."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        legacy = 'mean' if size_average and reduce else 'sum' if reduce else 'none'
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      "reduction='{}' instead.".format(legacy), stacklevel=3)
        return legacy
    if reduction not in _ENUMS:
        raise ValueError('{} is not a valid value for reduction'.format(reduction))
    return reduction


def _c(fn, *args):
    try:
        return fn(*args)
    except GLib.Error as e:
        raise _translate(e) from None


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction='mean'):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where
    it is -1 (cos with 1e-12 added to each squared norm, as torch's)."""
    r = _ENUMS[_reduction(size_average, reduce, reduction)]
    return _c(Dl.cosine_embedding_loss, input1, input2, target, float(margin), r)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction='mean'):
    """max(0, -target * (input1 - input2) + margin)."""
    r = _ENUMS[_reduction(size_average, reduce, reduction)]
    return _c(Dl.margin_ranking_loss, input1, input2, target, float(margin), r)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction='mean'):
    """x where target is 1, max(0, margin - x) where it is -1 (and both terms
    for any other target, as torch's)."""
    r = _ENUMS[_reduction(size_average, reduce, reduction)]
    return _c(Dl.hinge_embedding_loss, input, target, float(margin), r)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """log(1 + exp(-target * input))."""
    r = _ENUMS[_reduction(size_average, reduce, reduction)]
    return _c(Dl.soft_margin_loss, input, target, r)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction='mean'):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times weight, averaged
    over the classes (the last dim)."""
    r = _ENUMS[_reduction(size_average, reduce, reduction)]
    return _c(Dl.multilabel_soft_margin_loss, input, target, weight, r)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """For each sample, the sum over its target classes j (target's row up to
    the first -1) and the other classes i of max(0, 1 - (x[j] - x[i])),
    divided by the number of classes."""
    r = _ENUMS[_reduction(size_average, reduce, reduction)]
    return _c(Dl.multilabel_margin_loss, input, target, r)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction='mean'):
    """For each sample, the sum over the classes i other than its target y of
    max(0, margin - x[y] + x[i])^p (times weight[y]), divided by the number
    of classes."""
    r = _ENUMS[_reduction(size_average, reduce, reduction)]
    if p != 1 and p != 2:
        raise ValueError('only p == 1 and p == 2 supported')
    if weight is not None and weight.dim() != 1:
        raise ValueError('weight must be one-dimensional')
    return _c(Dl.multi_margin_loss, input, target, int(p), float(margin), weight, r)


def _check_triplet(anchor, positive, negative):
    a, p, n = anchor.dim(), positive.dim(), negative.dim()
    if not (a == p == n):
        raise RuntimeError('The anchor, positive, and negative tensors are expected to have the '
                           'same number of dimensions, but got: anchor {}D, positive {}D, and '
                           'negative {}D inputs'.format(a, p, n))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction='mean'):
    """max(0, margin + d(a, p) - d(a, n)) with d the pairwise p-norm distance
    (with swap, d(a, n) is min(d(a, n), d(p, n)))."""
    r = _ENUMS[_reduction(size_average, reduce, reduction)]
    return _c(Dl.triplet_margin_loss, anchor, positive, negative, float(margin), float(p),
              float(eps), bool(swap), r)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction='mean'):
    """triplet_margin_loss with any distance function (pairwise_distance by
    default)."""
    reduction = _reduction(None, None, reduction)
    _check_triplet(anchor, positive, negative)
    distance = distance_function if distance_function is not None else pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = dist_neg.minimum(distance(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    if reduction == 'mean':
        return loss.mean()
    if reduction == 'sum':
        return loss.sum()
    return loss


# ---- modules: libdl's classes ------------------------------------------------

class _MarginLoss(_Loss):
    """What the classes share: the reduction, from the deprecated flags
    too, and forward over any number of inputs."""

    def _make(self, typelib_class, size_average, reduce, reduction, **options):
        self._build(typelib_class, None, None, _reduction(size_average, reduce, reduction),
                    **options)

    def forward(self, *inputs):
        return Module.forward(self, *inputs)


@typelib_override(__name__)
class CosineEmbeddingLoss(_MarginLoss, Dl.CosineEmbeddingLoss, Module):
    """torch.nn.CosineEmbeddingLoss(margin=0.0, size_average=None, reduce=None,
    reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'margin')

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction='mean'):
        self._make(Dl.CosineEmbeddingLoss, size_average, reduce, reduction, margin=float(margin))


@typelib_override(__name__)
class MarginRankingLoss(_MarginLoss, Dl.MarginRankingLoss, Module):
    """torch.nn.MarginRankingLoss(margin=0.0, size_average=None, reduce=None,
    reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'margin')

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction='mean'):
        self._make(Dl.MarginRankingLoss, size_average, reduce, reduction, margin=float(margin))


@typelib_override(__name__)
class HingeEmbeddingLoss(_MarginLoss, Dl.HingeEmbeddingLoss, Module):
    """torch.nn.HingeEmbeddingLoss(margin=1.0, size_average=None, reduce=None,
    reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'margin')

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction='mean'):
        self._make(Dl.HingeEmbeddingLoss, size_average, reduce, reduction, margin=float(margin))


@typelib_override(__name__)
class SoftMarginLoss(_MarginLoss, Dl.SoftMarginLoss, Module):
    """torch.nn.SoftMarginLoss(size_average=None, reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction',)

    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        self._make(Dl.SoftMarginLoss, size_average, reduce, reduction)


@typelib_override(__name__)
class MultiLabelSoftMarginLoss(_MarginLoss, Dl.MultiLabelSoftMarginLoss, Module):
    """torch.nn.MultiLabelSoftMarginLoss(weight=None, size_average=None,
    reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight')

    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean'):
        self._make(Dl.MultiLabelSoftMarginLoss, size_average, reduce, reduction, weight=weight)


@typelib_override(__name__)
class MultiLabelMarginLoss(_MarginLoss, Dl.MultiLabelMarginLoss, Module):
    """torch.nn.MultiLabelMarginLoss(size_average=None, reduce=None,
    reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction',)

    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        self._make(Dl.MultiLabelMarginLoss, size_average, reduce, reduction)


@typelib_override(__name__)
class MultiMarginLoss(_MarginLoss, Dl.MultiMarginLoss, Module):
    """torch.nn.MultiMarginLoss(p=1, margin=1.0, weight=None, size_average=None,
    reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'weight', 'p', 'margin')

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction='mean'):
        if p != 1 and p != 2:
            raise ValueError('only p == 1 and p == 2 supported')
        if weight is not None and weight.dim() != 1:
            raise ValueError('MultiMarginLoss: expected weight to be None or 1D tensor, got {}D '
                             'instead'.format(weight.dim()))
        self._make(Dl.MultiMarginLoss, size_average, reduce, reduction, weight=weight,
                   p=float(p), margin=float(margin))

    def __getattr__(self, name):
        if name == 'p':
            return int(self.get_property('p'))
        return super().__getattr__(name)


@typelib_override(__name__)
class TripletMarginLoss(_MarginLoss, Dl.TripletMarginLoss, Module):
    """torch.nn.TripletMarginLoss(margin=1.0, p=2.0, eps=1e-6, swap=False,
    size_average=None, reduce=None, reduction='mean')."""
    __module__ = OVERRIDE_MODULE
    _properties = ('reduction', 'margin', 'p', 'eps', 'swap')

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction='mean'):
        self._make(Dl.TripletMarginLoss, size_average, reduce, reduction, margin=float(margin),
                   p=float(p), eps=float(eps), swap=bool(swap))


class TripletMarginWithDistanceLoss(Module):
    """torch.nn.TripletMarginWithDistanceLoss(*, distance_function=None,
    margin=1.0, swap=False, reduction='mean')."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction='mean'):
        super().__init__()
        self.reduction = _reduction(None, None, reduction)
        self.distance_function = distance_function if distance_function is not None \
            else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(anchor, positive, negative,
                                                 distance_function=self.distance_function,
                                                 margin=self.margin, swap=self.swap,
                                                 reduction=self.reduction)
