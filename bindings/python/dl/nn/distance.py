# distance.py: dl.nn.functional's cosine_similarity, pairwise_distance and
# pdist (torch.cosine_similarity, torch.pairwise_distance, torch.pdist),
# libdl's C functions dl_cosine_similarity, dl_pairwise_distance and
# dl_pdist, and the modules CosineSimilarity and PairwiseDistance, libdl's
# C classes DlCosineSimilarity and DlPairwiseDistance.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .._lib import OVERRIDE_MODULE, Dl, GLib, _translate, typelib_override
from .modules import Module, _construct, _Layer

__all__ = ['cosine_similarity', 'pairwise_distance', 'pdist', 'CosineSimilarity',
           'PairwiseDistance']


def _c(fn, *args):
    try:
        return fn(*args)
    except GLib.Error as e:
        raise _translate(e) from None


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps)) along dim, the inputs
    broadcast against each other."""
    return _c(Dl.cosine_similarity, x1, x2, int(dim), float(eps))


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The p-norm of x1 - x2 + eps along the last dim."""
    return _c(Dl.pairwise_distance, x1, x2, float(p), float(eps), bool(keepdim))


def pdist(input, p=2):
    """The p-norm distances between the rows of the 2-d input, for each
    pair i < j in row-major order."""
    return _c(Dl.pdist, input, float(p))


class _Distance(_Layer):
    def forward(self, x1, x2):
        return Module.forward(self, x1, x2)

    def extra_repr(self):
        return ''


@typelib_override(__name__)
class CosineSimilarity(_Distance, Dl.CosineSimilarity, Module):
    """torch.nn.CosineSimilarity(dim=1, eps=1e-8)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('dim', 'eps')

    def __init__(self, dim=1, eps=1e-8):
        _construct(self, Dl.CosineSimilarity, dim=int(dim), eps=float(eps))


@typelib_override(__name__)
class PairwiseDistance(_Distance, Dl.PairwiseDistance, Module):
    """torch.nn.PairwiseDistance(p=2.0, eps=1e-6, keepdim=False)."""
    __module__ = OVERRIDE_MODULE
    _properties = ('p', 'eps', 'keepdim')

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        _construct(self, Dl.PairwiseDistance, p=float(p), eps=float(eps), keepdim=bool(keepdim))

    def __getattr__(self, name):
        if name == 'norm':
            return self.get_property('p')
        return super().__getattr__(name)
