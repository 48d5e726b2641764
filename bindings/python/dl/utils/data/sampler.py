# sampler.py: torch.utils.data's samplers: the order of a pass.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

from ..._creation import Generator, as_tensor, empty, multinomial, randint, randperm
from ..._dtype import float64, int64

__all__ = ['Sampler', 'SequentialSampler', 'RandomSampler', 'SubsetRandomSampler',
           'WeightedRandomSampler', 'BatchSampler']


class Sampler:
    """torch.utils.data.Sampler: iterates over indices of a data set."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """The indices 0 .. len(data_source) - 1 in order."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _draw_seed(generator=None):
    """A seed drawn from @generator (the default generator when None), as
    PyTorch draws the seed of a pass's generator and the base seed of a
    DataLoader's pass."""
    return int(empty((), dtype=int64).random_(generator=generator).item())


def _pass_generator(generator):
    """The generator of one pass: @generator, or, as PyTorch does, a new one
    seeded from the default generator (the pass then draws from it, not from
    the default generator)."""
    if generator is not None:
        return generator
    return Generator().manual_seed(_draw_seed())


class RandomSampler(Sampler):
    """torch.utils.data.RandomSampler(data_source, replacement=False,
    num_samples=None, generator=None): a random permutation per pass (or
    draws with replacement)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError('replacement should be a boolean value, but got replacement=%s'
                            % self.replacement)
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError('num_samples should be a positive integer value, but got '
                             'num_samples=%s' % self.num_samples)

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = _pass_generator(self.generator)
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(0, n, (32,), dtype=int64,
                                   generator=generator).tolist()
            yield from randint(0, n, (self.num_samples % 32,), dtype=int64,
                               generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """torch.utils.data.WeightedRandomSampler(weights, num_samples,
    replacement=True, generator=None): num_samples indices drawn with the
    given (unnormalized) weights, one multinomial draw per pass."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError('num_samples should be a positive integer value, but got '
                             'num_samples={}'.format(num_samples))
        if not isinstance(replacement, bool):
            raise ValueError('replacement should be a boolean value, but got '
                             'replacement={}'.format(replacement))
        weights = as_tensor(weights, dtype=float64)
        if len(weights.shape) != 1:
            raise ValueError('weights should be a 1d sequence but given weights have shape '
                             '{}'.format(tuple(weights.shape)))
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """torch.utils.data.BatchSampler(sampler, batch_size, drop_last): the
    sampler's indices in lists of batch_size."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError('batch_size should be a positive integer value, but got '
                             'batch_size=%s' % (batch_size,))
        if not isinstance(drop_last, bool):
            raise ValueError('drop_last should be a boolean value, but got drop_last=%s'
                             % (drop_last,))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
