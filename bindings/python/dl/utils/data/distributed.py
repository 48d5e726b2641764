# dl.utils.data.distributed (torch.utils.data.distributed):
# DistributedSampler, each rank's share of a data set.
#
# Copyright 2026 The libdl authors
# SPDX-License-Identifier: LGPL-2.1-or-later

import math

from ..._creation import Generator, randperm
from .sampler import Sampler

__all__ = ['DistributedSampler']


class DistributedSampler(Sampler):
    """torch.utils.data.distributed.DistributedSampler(dataset,
    num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
    the indices of @dataset that rank @rank of @num_replicas reads in a
    pass, the same ones torch's sampler gives for the same arguments. With
    @shuffle the order is a permutation seeded by seed + epoch (call
    set_epoch at each epoch); the list is padded by repeating its start
    (or cut, with @drop_last) to a multiple of @num_replicas, and rank r
    takes every num_replicas-th index from r."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError('Requires distributed package to be available')
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError('Invalid rank {}, rank should be in the interval [0, {}]'
                             .format(rank, num_replicas - 1))
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) /
                                         self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            # the CPU generator's randperm is torch's: every rank, and
            # PyTorch, shuffle alike
            gen = Generator().manual_seed(self.seed + self.epoch)
            indices = randperm(n, generator=gen).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        indices = indices[self.rank:self.total_size:self.num_replicas]
        assert len(indices) == self.num_samples
        return iter(indices)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Sets the epoch, which seeds the next pass's shuffle (seed + epoch)."""
        self.epoch = epoch
