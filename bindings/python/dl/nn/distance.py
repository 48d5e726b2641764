# distance.py: dl.nn.functional's cosine_similarity, pairwise_distance and
# pdist (torch.cosine_similarity, torch.pairwise_distance, torch.pdist) and
# the modules CosineSimilarity and PairwiseDistance. Each is a composition
# of libdl's differentiable ops, with torch's formulas, so its gradient
# comes from theirs.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .modules import Module

__all__ = ['cosine_similarity', 'pairwise_distance', 'pdist', 'CosineSimilarity',
           'PairwiseDistance']


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 * x2) / sqrt(max(sum(x1^2) * sum(x2^2), eps^2)) along dim, the
    inputs broadcast against each other."""
    w12 = (x1 * x2).sum(dim)
    w1 = (x1 * x1).sum(dim)
    w2 = (x2 * x2).sum(dim)
    return w12 / (w1 * w2).clamp_min(eps * eps).sqrt()


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    ndim = max(x1.dim(), x2.dim())
    if ndim == 0:
        return (x1 - x2 + eps).abs()
    return (x1 - x2 + eps).norm(p, ndim - 1, keepdim)


def pdist(input, p=2):
    """The p-norm distances between the rows of the 2-d input, for each
    pair i < j in row-major order."""
    from .._creation import tensor
    if input.dim() != 2:
        raise RuntimeError('pdist only supports 2D tensors, got: {}D'.format(input.dim()))
    if p < 0:
        raise RuntimeError('pdist only supports non-negative p values')
    n = input.shape[0]
    rows = [i for i in range(n) for _ in range(i + 1, n)]
    cols = [j for i in range(n) for j in range(i + 1, n)]
    if not rows:
        return input.new_zeros([0])
    diff = input.index_select(0, tensor(rows)) - input.index_select(0, tensor(cols))
    return diff.norm(p, 1)


class CosineSimilarity(Module):
    """torch.nn.CosineSimilarity(dim=1, eps=1e-8)."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """torch.nn.PairwiseDistance(p=2.0, eps=1e-6, keepdim=False)."""

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
