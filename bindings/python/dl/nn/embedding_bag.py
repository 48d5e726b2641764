# embedding_bag.py: torch.nn.functional.embedding_bag and
# torch.nn.EmbeddingBag, composed as a lookup (F.embedding, so max_norm
# renormalises the rows it reads) and a reduction of each bag's rows into
# its output row: index_add for 'sum' and 'mean', scatter_reduce's amax for
# 'max' (empty bags are zeros, as torch's). The weight's gradient is that
# of the lookup and of the reduction.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from .conv import embedding
from .modules import Module
from .parameter import Parameter

__all__ = ['embedding_bag', 'EmbeddingBag']

_MODES = ('sum', 'mean', 'max')


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode='mean', sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """torch.nn.functional.embedding_bag: the sums, means or maxima of the
    bags of rows of weight that input indexes (bags given by offsets into
    a 1-D input, or the rows of a 2-D input)."""
    from .. import _creation
    from .._composites import bucketize
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError('embedding_bag: If per_sample_weights ({}) is not None, then it must '
                         'have the same shape as the input ({})'.format(
                             per_sample_weights.size(), input.size()))
    if weight.dim() != 2:
        raise ValueError('weight has to be a 2D Tensor, but got Tensor of dimension {}'
                         .format(weight.dim()))
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError('if input is 2D, then offsets has to be None, as input is treated is '
                             'a mini-batch of fixed length sequences. However, found offsets of '
                             'type {}'.format(str(type(offsets))))
        offsets = _creation.arange(0, input.numel(), max(input.size(1), 1), dtype=input.dtype)
        if input.size(1) == 0:
            offsets = _creation.zeros(input.size(0), dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError('offsets has to be a 1D Tensor but got None')
        if offsets.dim() != 1:
            raise ValueError('offsets has to be a 1D Tensor')
    else:
        raise ValueError('input has to be 1D or 2D Tensor, but got Tensor of dimension {}'
                         .format(input.dim()))
    if mode not in _MODES:
        raise ValueError('mode has to be one of sum, mean or max')
    if per_sample_weights is not None and mode != 'sum':
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  "(got mode='{}'). Please open a feature request on GitHub."
                                  .format(mode))
    if scale_grad_by_freq or sparse:
        raise NotImplementedError('embedding_bag: scale_grad_by_freq and sparse are not '
                                  'supported by libdl')
    if input.is_floating_point() or offsets.is_floating_point():
        raise RuntimeError('embedding_bag: expected input and offsets of an integer dtype '
                           '(Long or Int), got %s and %s' % (input.dtype, offsets.dtype))
    n = weight.size(0)
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < n, 'padding_idx must be within num_embeddings'
        elif padding_idx < 0:
            assert padding_idx >= -n, 'padding_idx must be within num_embeddings'
            padding_idx = n + padding_idx
    n_bags = offsets.size(0) - (1 if include_last_offset else 0)
    if include_last_offset and offsets.size(0) < 1:
        raise RuntimeError('embedding_bag: include_last_offset needs at least one offset')
    offs = offsets.long()
    if n_bags > 0 and int(offs[0]) != 0:
        raise RuntimeError('offsets[0] has to be 0, i.e., the first sequence in the mini-batch '
                           'has to start from position 0. However, got {}'.format(int(offs[0])))
    length = input.size(0)
    if include_last_offset:
        end = int(offs[-1]) if offsets.size(0) else 0
        if end > length:
            raise RuntimeError('embedding_bag: the last offset %d is past the input\'s end %d'
                               % (end, length))
        offs = offs.narrow(0, 0, n_bags)
        length = end
    idx = input.long().narrow(0, 0, length)
    d = weight.size(1)
    # the bag of each entry, and the entries that count (not padding_idx)
    bag = bucketize(_creation.arange(length), offs, right=True) - 1
    if padding_idx is not None or include_last_offset:
        keep = (idx != (-1 if padding_idx is None else padding_idx)).nonzero().reshape(-1)
        idx, bag = idx.index_select(0, keep), bag.index_select(0, keep)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.narrow(0, 0, length).index_select(0, keep)
    rows = embedding(idx, weight, max_norm=max_norm, norm_type=norm_type)
    out = _creation.zeros(n_bags, d, dtype=weight.dtype)
    if mode == 'max':
        return out.scatter_reduce(0, bag.unsqueeze(1).expand(-1, d), rows, 'amax',
                                  include_self=False)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    out = out.index_add(0, bag, rows)
    if mode == 'mean':
        counts = _creation.zeros(n_bags, dtype=weight.dtype).index_add(
            0, bag, _creation.ones(bag.size(0), dtype=weight.dtype))
        out = out / counts.clamp(min=1).unsqueeze(1)
    return out


class EmbeddingBag(Module):
    """torch.nn.EmbeddingBag(num_embeddings, embedding_dim, max_norm=None,
    norm_type=2.0, scale_grad_by_freq=False, mode='mean', sparse=False,
    _weight=None, include_last_offset=False, padding_idx=None): its weight
    drawn from N(0, 1), the padding row zeroed."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.,
                 scale_grad_by_freq=False, mode='mean', sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        from .. import _creation
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if padding_idx is not None:
            if padding_idx > 0:
                assert padding_idx < num_embeddings, 'padding_idx must be within num_embeddings'
            elif padding_idx < 0:
                assert padding_idx >= -num_embeddings, \
                    'padding_idx must be within num_embeddings'
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        if _weight is None:
            kw = {} if dtype is None else {'dtype': dtype}
            self.weight = Parameter(_creation.empty(num_embeddings, embedding_dim, **kw))
            self.reset_parameters()
        else:
            assert list(_weight.shape) == [num_embeddings, embedding_dim], \
                'Shape of weight does not match num_embeddings and embedding_dim'
            self.weight = Parameter(_weight)
        self.mode, self.sparse = mode, sparse
        self.include_last_offset = include_last_offset

    def reset_parameters(self):
        from .._api import no_grad
        with no_grad():
            self.weight.normal_()
            if self.padding_idx is not None:
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse,
                             per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = '{}, {}'.format(self.num_embeddings, self.embedding_dim)
        if self.max_norm is not None:
            s += ', max_norm={}'.format(self.max_norm)
        if self.norm_type != 2:
            s += ', norm_type={}'.format(self.norm_type)
        if self.scale_grad_by_freq is not False:
            s += ', scale_grad_by_freq={}'.format(self.scale_grad_by_freq)
        s += ', mode={}'.format(self.mode)
        if self.padding_idx is not None:
            s += ', padding_idx={}'.format(self.padding_idx)
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.,
                        scale_grad_by_freq=False, mode='mean', sparse=False,
                        include_last_offset=False, padding_idx=None):
        assert embeddings.dim() == 2, 'Embeddings parameter is expected to be 2-dimensional'
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad = not freeze
        return bag
