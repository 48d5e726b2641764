# margin_loss.py: the margin and embedding losses of dl.nn.functional and
# dl.nn: cosine_embedding_loss, margin_ranking_loss, hinge_embedding_loss,
# soft_margin_loss, multilabel_soft_margin_loss, multilabel_margin_loss,
# multi_margin_loss, triplet_margin_loss and
# triplet_margin_with_distance_loss. Each is a composition of libdl's
# differentiable ops with torch's formula (these losses are rare, and the
# composition is exact), so its gradient comes from theirs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import warnings

from .activation import logsigmoid
from .distance import PairwiseDistance, pairwise_distance
from .modules import Module

__all__ = ['cosine_embedding_loss', 'margin_ranking_loss', 'hinge_embedding_loss',
           'soft_margin_loss', 'multilabel_soft_margin_loss', 'multilabel_margin_loss',
           'multi_margin_loss', 'triplet_margin_loss', 'triplet_margin_with_distance_loss',
           'CosineEmbeddingLoss', 'MarginRankingLoss', 'HingeEmbeddingLoss', 'SoftMarginLoss',
           'MultiLabelSoftMarginLoss', 'MultiLabelMarginLoss', 'MultiMarginLoss',
           'TripletMarginLoss', 'TripletMarginWithDistanceLoss']


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
    if reduction not in ('none', 'mean', 'sum'):
        raise ValueError('{} is not a valid value for reduction'.format(reduction))
    return reduction


def _reduce(loss, reduction):
    if reduction == 'mean':
        return loss.mean()
    if reduction == 'sum':
        return loss.sum()
    return loss


def _where(cond, a, b):
    from .._indexing import where
    return where(cond, a, b)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction='mean'):
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where
    it is -1 (cos with 1e-12 added to each squared norm, as torch's)."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim():
        raise RuntimeError('cosine_embedding_loss: Input1 and Input2 must have same number of '
                           'dimensions, but got input1 {}D and input2 {}D'.format(
                               input1.dim(), input2.dim()))
    if target.dim() + 1 != input1.dim() or input1.dim() > 2:
        raise RuntimeError('cosine_embedding_loss: {}D target tensor expects {}D input tensors, '
                           'but found inputs with sizes {} and {}.'.format(
                               target.dim(), target.dim() + 1, list(input1.shape),
                               list(input2.shape)))
    dim = input1.dim() - 1
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + 1e-12
    mag2 = (input2 * input2).sum(dim) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    zeros = cos * 0
    pos = _where(target == 1, 1 - cos, zeros)
    neg = _where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _reduce(pos + neg, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction='mean'):
    """max(0, -target * (input1 - input2) + margin)."""
    reduction = _reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError('margin_ranking_loss : All input tensors should have same dimension '
                           'but got sizes: input1: {}, input2: {}, target: {} '.format(
                               input1.size(), input2.size(), target.size()))
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction='mean'):
    """x where target is 1, max(0, margin - x) where it is -1 (and both terms
    for any other target, as torch's)."""
    reduction = _reduction(size_average, reduce, reduction)
    zeros = input * 0
    margin_part = _where(target != 1, (margin - input).clamp_min(0), zeros)
    self_part = _where(target != -1, input, zeros)
    return _reduce(margin_part + self_part, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """log(1 + exp(-target * input))."""
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce((-target * input).exp().log1p(), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction='mean'):
    """-(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times weight, averaged
    over the classes (the last dim)."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


def _as_batch(input, target, name):
    if input.dim() not in (1, 2):
        raise RuntimeError('{}: Expected non-empty vector or matrix with optional 0-dim batch '
                           'size, but got: {}'.format(name, list(input.shape)))
    if input.dim() == 1:
        return input.unsqueeze(0), target.reshape([1, -1]), True
    return input, target, False


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction='mean'):
    """For each sample, the sum over its target classes j (target's row up to
    the first -1) and the other classes i of max(0, 1 - (x[j] - x[i])),
    divided by the number of classes."""
    from .functional import one_hot
    reduction = _reduction(size_average, reduce, reduction)
    x, t, single = _as_batch(input, target, 'multilabel_margin_loss')
    if tuple(t.shape) != tuple(x.shape):
        raise RuntimeError('inconsistent target size: {} for input of size: {}'.format(
            list(target.shape), list(input.shape)))
    c = x.shape[1]
    if t.numel() and (int(t.max()) >= c or int(t.min()) < -1):
        raise RuntimeError('multilabel_margin_loss: target index out of range: targets must be '
                           'in [-1, {}]'.format(c - 1))
    valid = (t != -1).long().cumprod(1).to(x.dtype)           # [N, C]: before the first -1
    y = t.clamp_min(0)
    hot = one_hot(y, c).to(x.dtype) * valid.unsqueeze(2)      # [N, T, C]
    is_target = (hot.sum(1) > 0).to(x.dtype)                  # [N, C]
    xy = x.gather(1, y)                                        # [N, T]
    margins = (1 - xy.unsqueeze(2) + x.unsqueeze(1)).clamp_min(0)
    mask = valid.unsqueeze(2) * (1 - is_target).unsqueeze(1)
    loss = (margins * mask).sum([1, 2]) / c
    if single:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction='mean'):
    """For each sample, the sum over the classes i other than its target y of
    max(0, margin - x[y] + x[i])^p (times weight[y]), divided by the number
    of classes."""
    from .functional import one_hot
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError('only p == 1 and p == 2 supported')
    if weight is not None and weight.dim() != 1:
        raise ValueError('weight must be one-dimensional')
    x, t, _ = _as_batch(input, target, 'multi_margin_loss')
    t = t.reshape([-1])
    if t.shape[0] != x.shape[0]:
        raise RuntimeError('inconsistent target size, expected {} but got {}'.format(
            x.shape[0], list(target.shape)))
    c = x.shape[1]
    if t.numel() and (int(t.max()) >= c or int(t.min()) < 0):
        raise RuntimeError('multi_margin_loss: target out of range: targets must be in '
                           '[0, {}]'.format(c - 1))
    xy = x.gather(1, t.unsqueeze(1))
    m = (margin - xy + x).clamp_min(0)
    if p == 2:
        m = m * m
    if weight is not None:
        m = m * weight.index_select(0, t).unsqueeze(1)
    others = 1 - one_hot(t, c).to(x.dtype)
    return _reduce((m * others).sum(1) / c, reduction)


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
    reduction = _reduction(size_average, reduce, reduction)
    _check_triplet(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = dist_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


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
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


# ---- modules -------------------------------------------------------------------

class _MarginLoss(Module):
    def __init__(self, size_average=None, reduce=None, reduction='mean'):
        super().__init__()
        self.reduction = _reduction(size_average, reduce, reduction)


class _WeightedMarginLoss(_MarginLoss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer('weight', weight)


class CosineEmbeddingLoss(_MarginLoss):
    """torch.nn.CosineEmbeddingLoss(margin=0.0, size_average=None, reduce=None,
    reduction='mean')."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class MarginRankingLoss(_MarginLoss):
    """torch.nn.MarginRankingLoss(margin=0.0, size_average=None, reduce=None,
    reduction='mean')."""

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, margin=self.margin,
                                   reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """torch.nn.HingeEmbeddingLoss(margin=1.0, size_average=None, reduce=None,
    reduction='mean')."""

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_MarginLoss):
    """torch.nn.SoftMarginLoss(size_average=None, reduce=None, reduction='mean')."""

    def forward(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedMarginLoss):
    """torch.nn.MultiLabelSoftMarginLoss(weight=None, size_average=None,
    reduce=None, reduction='mean')."""

    def forward(self, input, target):
        return multilabel_soft_margin_loss(input, target, weight=self.weight,
                                           reduction=self.reduction)


class MultiLabelMarginLoss(_MarginLoss):
    """torch.nn.MultiLabelMarginLoss(size_average=None, reduce=None,
    reduction='mean')."""

    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiMarginLoss(_WeightedMarginLoss):
    """torch.nn.MultiMarginLoss(p=1, margin=1.0, weight=None, size_average=None,
    reduce=None, reduction='mean')."""

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction='mean'):
        super().__init__(weight, size_average, reduce, reduction)
        if p != 1 and p != 2:
            raise ValueError('only p == 1 and p == 2 supported')
        if weight is not None and weight.dim() != 1:
            raise ValueError('MultiMarginLoss: expected weight to be None or 1D tensor, got {}D '
                             'instead'.format(weight.dim()))
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return multi_margin_loss(input, target, p=self.p, margin=self.margin, weight=self.weight,
                                 reduction=self.reduction)


class TripletMarginLoss(_MarginLoss):
    """torch.nn.TripletMarginLoss(margin=1.0, p=2.0, eps=1e-6, swap=False,
    size_average=None, reduce=None, reduction='mean')."""

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction='mean'):
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                   eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_MarginLoss):
    """torch.nn.TripletMarginWithDistanceLoss(*, distance_function=None,
    margin=1.0, swap=False, reduction='mean')."""

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction='mean'):
        super().__init__(None, None, reduction)
        self.distance_function = distance_function if distance_function is not None \
            else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(anchor, positive, negative,
                                                 distance_function=self.distance_function,
                                                 margin=self.margin, swap=self.swap,
                                                 reduction=self.reduction)
