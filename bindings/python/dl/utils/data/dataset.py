# dataset.py: torch.utils.data's data sets.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A Python data set is a plain Python class, as PyTorch's: __getitem__ and
# __len__. The ones libdl has in C (TensorDataset, and Subset and
# ConcatDataset of C data sets) also carry that C object as _dl_dataset,
# which DataLoader hands to Dl.DataLoader: batches then load in C, on
# worker threads when asked, without the GIL.

import bisect
import math
import warnings

from ..._creation import randperm
from ..._lib import Dl, _checked, _is_tensor

__all__ = ['Dataset', 'IterableDataset', 'TensorDataset', 'Subset', 'ConcatDataset',
           'ChainDataset', 'random_split']


class Dataset:
    """torch.utils.data.Dataset: subclass it and define __getitem__ (and
    __len__, which DataLoader's default samplers need)."""

    def __getitem__(self, index):
        raise NotImplementedError('Subclasses of Dataset should implement __getitem__.')

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """torch.utils.data.IterableDataset: a stream of samples (__iter__)."""

    def __iter__(self):
        raise NotImplementedError('Subclasses of IterableDataset should implement __iter__.')

    def __add__(self, other):
        raise TypeError('ConcatDataset does not support IterableDataset')


class ChainDataset(IterableDataset):
    """torch.utils.data.ChainDataset(datasets): iterable data sets one
    after the other, chained on the fly."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def _checked(self):
        for d in self.datasets:
            assert isinstance(d, IterableDataset), 'ChainDataset only supports IterableDataset'
            yield d

    def __iter__(self):
        for d in self._checked():
            yield from d

    def __len__(self):
        return sum(len(d) for d in self._checked())


class TensorDataset(Dataset):
    """torch.utils.data.TensorDataset(*tensors): sample i is
    (tensors[0][i], tensors[1][i], ...)."""

    def __init__(self, *tensors):
        if not tensors or any(not _is_tensor(t) or t.dim() == 0 for t in tensors) or \
                any(t.size(0) != tensors[0].size(0) for t in tensors):
            raise AssertionError('Size mismatch between tensors')
        self.tensors = tensors
        self._dl_dataset = _checked(Dl.TensorDataset.new)(list(tensors))

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class Subset(Dataset):
    """torch.utils.data.Subset(dataset, indices)."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    @property
    def _dl_dataset(self):
        inner = getattr(self.dataset, '_dl_dataset', None)
        if inner is None:
            return None
        return _checked(Dl.Subset.new)(inner, [int(i) for i in self.indices])

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """torch.utils.data.ConcatDataset(datasets): the data sets one after the
    other."""

    @staticmethod
    def cumsum(sequence):
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError('datasets should not be an empty iterable')
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError('ConcatDataset does not support IterableDataset')
        self.cumulative_sizes = self.cumsum(self.datasets)

    @property
    def _dl_dataset(self):
        inner = [getattr(d, '_dl_dataset', None) for d in self.datasets]
        if any(d is None for d in inner):
            return None
        return _checked(Dl.ConcatDataset.new)(inner)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError('absolute value of index should not exceed dataset length')
            idx = len(self) + idx
        i = bisect.bisect_right(self.cumulative_sizes, idx)
        return self.datasets[i][idx - (self.cumulative_sizes[i - 1] if i else 0)]


def random_split(dataset, lengths, generator=None):
    """torch.utils.data.random_split: non-overlapping Subsets of the given
    lengths (counts, or fractions that sum to 1), from a random
    permutation drawn from @generator."""
    if generator is None:
        generator = Dl.default_generator()
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError('Fraction at index %d is not between 0 and 1' % i)
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn('Length of split at index %d is 0. This might result in an empty '
                              'dataset.' % i)
        lengths = counts
    if sum(lengths) != n:
        raise ValueError('Sum of input lengths does not equal the length of the input dataset!')
    indices = randperm(sum(lengths), generator=generator).tolist()
    out, start = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[start:start + length]))
        start += length
    return out
